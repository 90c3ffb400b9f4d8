import { describe, expect, it } from "vitest";
import {
  AFF_MSG,
  changePasswordBody,
  changePasswordSchema,
  checkTransfer,
  defaultTransferAmount,
  deletionConfirmed,
  entryToQuota,
  inviteLink,
  isBelowTransferMinimum,
  roleLabel,
  SETTINGS_MSG,
} from "@/lib/users/self-form";

const dollars = { quotaPerUnit: 500_000, inCurrency: true };
const units = { quotaPerUnit: 500_000, inCurrency: false };

const firstError = (values: { original_password: string; password: string; password2: string }) => {
  const parsed = changePasswordSchema.safeParse(values);
  return parsed.success ? null : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("invite link", () => {
  it("uses the server address when one is set, else the console's own origin", () => {
    expect(inviteLink("https://api.example.com/", "http://127.0.0.1:3000", "Ab3d")).toBe("https://api.example.com/register?aff=Ab3d");
    expect(inviteLink("  ", "http://127.0.0.1:3000", "Ab3d")).toBe("http://127.0.0.1:3000/register?aff=Ab3d");
    expect(inviteLink("", "http://h", "a b&c")).toBe("http://h/register?aff=a%20b%26c");
  });
});

describe("invite reward transfer (spec §5: at least one quota unit)", () => {
  it("reads the amount as dollars while currency is shown, else as quota units", () => {
    expect(entryToQuota(1.5, dollars)).toBe(750_000);
    expect(entryToQuota("2", dollars)).toBe(1_000_000);
    expect(entryToQuota(0.01, dollars)).toBe(5_000);
    expect(entryToQuota(600_000.9, units)).toBe(600_000);
    expect(entryToQuota("", dollars)).toBeNull();
    expect(entryToQuota("abc", units)).toBeNull();
  });

  it("offers all of the pending reward, never more than there is", () => {
    expect(defaultTransferAmount(1_000_000, dollars)).toBe(2);
    expect(defaultTransferAmount(1_234_567, dollars)).toBe(2.46);
    expect(entryToQuota(defaultTransferAmount(1_234_567, dollars), dollars)).toBeLessThanOrEqual(1_234_567);
    expect(defaultTransferAmount(1_234_567, units)).toBe(1_234_567);
    expect(defaultTransferAmount(0, dollars)).toBe(0);
    expect(defaultTransferAmount(-5, units)).toBe(0);
  });

  it("refuses less than one quota unit with new-api's text, in the site's quota wording", () => {
    expect(checkTransfer(0.99, 5_000_000, dollars)).toEqual({ ok: false, message: "转移额度最小为＄1.000000 额度！" });
    expect(checkTransfer("", 5_000_000, dollars)).toEqual({ ok: false, message: AFF_MSG.transferTooSmall("＄1.000000 额度") });
    expect(checkTransfer(499_999, 5_000_000, units)).toEqual({ ok: false, message: "转移额度最小为500000 点额度！" });
    expect(isBelowTransferMinimum(500_000, 500_000)).toBe(false);
    expect(isBelowTransferMinimum(499_999, 500_000)).toBe(true);
    expect(isBelowTransferMinimum(1.5e6 + 0.5, 500_000)).toBe(true);
  });

  it("refuses more than the pending reward", () => {
    expect(checkTransfer(3, 1_000_000, dollars)).toEqual({ ok: false, message: AFF_MSG.insufficient });
    expect(AFF_MSG.insufficient).toBe("邀请额度不足！");
  });

  it("sends whole quota units", () => {
    expect(checkTransfer(1, 1_000_000, dollars)).toEqual({ ok: true, quota: 500_000 });
    expect(checkTransfer(2, 1_000_000, dollars)).toEqual({ ok: true, quota: 1_000_000 });
    expect(checkTransfer("600000", 1_000_000, units)).toEqual({ ok: true, quota: 600_000 });
  });
});

describe("change password (spec §5 Users)", () => {
  const ok = { original_password: "old-secret", password: "new-secret-1", password2: "new-secret-1" };

  it("accepts a current password and a new one of 8–20 characters typed twice", () => {
    expect(firstError(ok)).toBeNull();
    expect(changePasswordBody(ok)).toEqual({ original_password: "old-secret", password: "new-secret-1" });
  });

  it("needs the current password", () => {
    expect(firstError({ ...ok, original_password: "" })).toEqual([`original_password: ${SETTINGS_MSG.originalRequired}`]);
    expect(SETTINGS_MSG.originalRequired).toBe("请输入原密码");
  });

  it("refuses a new password under 8 or over 20 characters", () => {
    expect(firstError({ ...ok, password: "1234567", password2: "1234567" })).toEqual(["password: 密码长度不得小于 8 位！"]);
    expect(firstError({ ...ok, password: "x".repeat(21), password2: "x".repeat(21) })).toEqual(["password: 密码长度不得大于 20 位！"]);
  });

  it("refuses a confirmation that differs", () => {
    expect(firstError({ ...ok, password2: "new-secret-2" })).toEqual(["password2: 两次输入的密码不一致！"]);
  });
});

describe("account deletion", () => {
  it("needs the own username typed exactly", () => {
    expect(deletionConfirmed("alice", "alice")).toBe(true);
    expect(deletionConfirmed(" alice ", "alice")).toBe(true);
    expect(deletionConfirmed("Alice", "alice")).toBe(false);
    expect(deletionConfirmed("", "alice")).toBe(false);
    expect(SETTINGS_MSG.deleteMismatch).toBe("请输入你的账户名以确认删除！");
  });
});

describe("role badge", () => {
  it("names the super admin, the admin and the ordinary user", () => {
    expect(roleLabel(100).label).toBe("超级管理员");
    expect(roleLabel(10).label).toBe("管理员");
    expect(roleLabel(1).label).toBe("普通用户");
  });
});
