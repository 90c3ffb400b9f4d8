import { describe, expect, it } from "vitest";
import { guardPage, pageAccess } from "@/lib/auth/route-access";

const q = (s = "") => new URLSearchParams(s);
const user = { role: 1 };
const admin = { role: 10 };
const root = { role: 100 };

describe("pageAccess", () => {
  it("keeps the public pages and unknown paths open", () => {
    for (const p of [
      "/",
      "/login",
      "/register",
      "/reset",
      "/user/reset",
      "/about",
      "/pricing",
      "/oauth/github",
      "/no/such/page",
      "/tokens",
    ]) {
      expect(pageAccess(p), p).toBe("public");
    }
  });
  it("guards the console pages by tier", () => {
    expect(pageAccess("/token")).toBe("user");
    expect(pageAccess("/token/")).toBe("user");
    expect(pageAccess("/chat/2")).toBe("user");
    expect(pageAccess("/setting")).toBe("user");
    expect(pageAccess("/channel")).toBe("admin");
    expect(pageAccess("/channel/edit/3")).toBe("admin");
    expect(pageAccess("/redemption")).toBe("admin");
    expect(pageAccess("/orders")).toBe("admin");
    expect(pageAccess("/user")).toBe("admin");
    expect(pageAccess("/user/edit/7")).toBe("admin");
    expect(pageAccess("/audit")).toBe("root");
    expect(pageAccess("/audit/")).toBe("root");
  });
});

describe("guardPage", () => {
  it("sends visitors who never logged in to /login, and those whose session has gone to the expired notice", () => {
    expect(guardPage("/token", q(), null, false)).toEqual({ action: "redirect", to: "/login" });
    expect(guardPage("/token", q(), null, true)).toEqual({ action: "redirect", to: "/login?expired=true" });
    expect(guardPage("/about", q(), null, false)).toEqual({ action: "next" });
    expect(guardPage("/whatever", q(), null, false)).toEqual({ action: "next" });
  });
  it("refuses admin pages below role 10", () => {
    expect(guardPage("/channel", q(), user, true)).toEqual({ action: "redirect", to: "/" });
    expect(guardPage("/user/edit/3", q(), user, true)).toEqual({ action: "redirect", to: "/" });
    expect(guardPage("/channel", q(), admin, true)).toEqual({ action: "next" });
    expect(guardPage("/orders", q("status=pending"), user, true)).toEqual({ action: "redirect", to: "/" });
    expect(guardPage("/orders", q("status=pending"), admin, true)).toEqual({ action: "next" });
  });
  it("refuses the audit trail below role 100", () => {
    expect(guardPage("/audit", q(), user, true)).toEqual({ action: "redirect", to: "/" });
    expect(guardPage("/audit", q(), admin, true)).toEqual({ action: "redirect", to: "/" });
    expect(guardPage("/audit", q(), null, false)).toEqual({ action: "redirect", to: "/login" });
    expect(guardPage("/audit", q("actor=root"), root, true)).toEqual({ action: "next" });
  });
  it("refuses the super-admin settings tabs below role 100", () => {
    for (const tab of ["operation", "system", "other", "import"]) {
      expect(guardPage("/setting", q(`tab=${tab}`), admin, true)).toEqual({ action: "redirect", to: "/setting" });
      expect(guardPage("/setting", q(`tab=${tab}`), root, true)).toEqual({ action: "next" });
    }
    expect(guardPage("/setting", q("tab=personal"), user, true)).toEqual({ action: "next" });
  });
});
