import { describe, expect, it } from "vitest";
import { fieldName, fieldProblem } from "@/lib/ui/field-problem";

describe("fieldProblem", () => {
  it("puts the field's name before an error that does not say it", () => {
    expect(fieldProblem("添加额度", "额度必须是整数")).toBe("添加额度：额度必须是整数");
  });

  it("leaves an error that names the field alone", () => {
    expect(fieldProblem("用户名 *", "请输入用户名")).toBe("请输入用户名");
    expect(fieldProblem("过期时间", "过期时间格式错误！")).toBe("过期时间格式错误！");
  });

  it("drops the required mark and the live note in brackets from the label", () => {
    expect(fieldName("额度（等价金额：$1.00） *")).toBe("额度");
    expect(fieldName("剩余额度(¥7.30)")).toBe("剩余额度");
    expect(fieldProblem("剩余额度（$2.00）", "额度必须是整数")).toBe("剩余额度：额度必须是整数");
  });

  it("is the error alone when the field has no label", () => {
    expect(fieldProblem("", "请至少选择一个模型！")).toBe("请至少选择一个模型！");
  });
});
