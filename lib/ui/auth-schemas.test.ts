import { describe, expect, it } from "vitest";
import { loginFormSchema, registerFormSchema } from "@/lib/ui/auth-schemas";

const messages = (r: { success: boolean; error?: { issues: { message: string }[] } }) =>
  r.success ? [] : r.error!.issues.map((i) => i.message);

describe("loginFormSchema", () => {
  it("asks for username and password", () => {
    expect(messages(loginFormSchema.safeParse({ username: " ", password: "" }))).toContain("请输入用户名和密码！");
    expect(loginFormSchema.safeParse({ username: "root", password: "123456" }).success).toBe(true);
  });
});

describe("registerFormSchema", () => {
  const base = { username: "alice", password: "12345678", password2: "12345678", email: "", verification_code: "" };
  it("accepts a valid registration without e-mail verification", () => {
    expect(registerFormSchema(false).safeParse(base).success).toBe(true);
  });
  it("rejects short passwords and mismatched confirmation with the original messages", () => {
    expect(messages(registerFormSchema(false).safeParse({ ...base, password: "1234567", password2: "1234567" }))).toContain(
      "密码长度不得小于 8 位！",
    );
    expect(messages(registerFormSchema(false).safeParse({ ...base, password2: "12345679" }))).toEqual(["两次输入的密码不一致"]);
  });
  it("requires e-mail and code only when verification is on", () => {
    expect(messages(registerFormSchema(true).safeParse(base))).toEqual(["请输入正确的邮箱地址", "请输入验证码"]);
    expect(registerFormSchema(true).safeParse({ ...base, email: "a@b.co", verification_code: "123456" }).success).toBe(true);
  });
});
