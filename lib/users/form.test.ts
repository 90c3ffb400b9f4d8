import { describe, expect, it } from "vitest";
import {
  addUserErrors,
  editUserBody,
  editUserErrors,
  type EditUserValues,
  quotaAfterAdd,
  USER_FORM_MSG,
  wholeNumber,
} from "@/lib/users/form";

const edit = (over: Partial<EditUserValues> = {}): EditUserValues => ({
  username: "alice",
  display_name: " Alice ",
  password: "",
  group: "vip",
  quota: 1000,
  add_quota: "",
  ...over,
});

describe("user forms (spec §5 Users)", () => {
  it("requires username and password on add, with the register limits", () => {
    expect(addUserErrors({ username: " ", display_name: "", password: "" })).toEqual({
      username: "请输入用户名",
      password: "请输入密码",
    });
    expect(addUserErrors({ username: "a", display_name: "", password: "short" })).toEqual({ password: "密码长度不得小于 8 位！" });
    expect(addUserErrors({ username: "a", display_name: "", password: "x".repeat(21) })).toEqual({ password: "密码长度不得大于 20 位！" });
    expect(addUserErrors({ username: "a", display_name: "", password: "password1" })).toEqual({});
  });

  it("marks what the API's schema refuses, with the API's words", () => {
    expect(addUserErrors({ username: "a b", display_name: "", password: "password1" })).toEqual({
      username: "用户名长度为 1–20 个字符，且不能包含空白字符",
    });
    expect(addUserErrors({ username: "a@b", display_name: "x".repeat(21), password: "password1" })).toEqual({
      username: "用户名不能包含 @ 符号",
      display_name: "显示名称不能超过 20 个字符",
    });
    expect(editUserErrors(edit({ username: "a b", group: " " }))).toEqual({
      username: "用户名长度为 1–20 个字符，且不能包含空白字符",
      group: "分组不能为空",
    });
  });

  it("keeps the password when it is left empty on edit, and says the minimum in the placeholder", () => {
    expect(USER_FORM_MSG.passwordPlaceholder).toBe("请输入新的密码，最短 8 位");
    expect(editUserErrors(edit())).toEqual({});
    expect(editUserErrors(edit({ password: "short" }))).toEqual({ password: "密码长度不得小于 8 位！" });
    expect(editUserErrors(edit({ password: "x".repeat(21) }))).toEqual({ password: "密码长度不得大于 20 位！" });
    expect(editUserErrors(edit({ username: "" }))).toEqual({ username: "请输入用户名" });
    expect(editUserBody(3, edit(), 1000).password).toBe("");
  });

  it("adds positive and negative amounts to the balance", () => {
    expect(quotaAfterAdd({ quota: 1000, add_quota: 500 })).toBe(1500);
    expect(quotaAfterAdd({ quota: 1000, add_quota: -1500 })).toBe(-500);
    expect(quotaAfterAdd({ quota: "1000", add_quota: "" })).toBe(1000);
    expect(quotaAfterAdd({ quota: 1000, add_quota: "-" })).toBe(1000);
    expect(quotaAfterAdd({ quota: 1000, add_quota: "1.5" })).toBeNull();
    expect(quotaAfterAdd({ quota: Number.MAX_SAFE_INTEGER, add_quota: 1 })).toBeNull();
    expect(wholeNumber("abc")).toBeNull();
    expect(wholeNumber(" -42 ")).toBe(-42);
    expect(editUserErrors(edit({ add_quota: "1.5" }))).toEqual({ add_quota: "额度必须是整数" });
    expect(editUserErrors(edit({ quota: "x" }))).toEqual({ quota: "额度必须是整数" });
  });

  it("sends the new balance with the balance it loaded, trimmed names", () => {
    expect(editUserBody(3, edit({ add_quota: -300, password: "newpassword" }), 1000)).toEqual({
      id: 3,
      username: "alice",
      display_name: "Alice",
      password: "newpassword",
      group: "vip",
      quota: 700,
      original_quota: 1000,
    });
    // The admin may also type a new balance and add to it.
    expect(editUserBody(3, edit({ quota: 5000, add_quota: 100 }), 1000)).toMatchObject({ quota: 5100, original_quota: 1000 });
  });
});
