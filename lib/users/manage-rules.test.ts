import { describe, expect, it } from "vitest";
import { editRefusal, manageRefusal, USER_ACTIONS, USER_MSG } from "@/lib/users/manage-rules";

const root = { id: 1, role: 100 };
const admin = { id: 2, role: 10 };
const user = (over: Partial<{ id: number; role: number; status: number }> = {}) => ({ id: 9, role: 1, status: 1, ...over });

describe("user actions (spec §4, §6)", () => {
  it("never lets anyone disable, delete or demote root, nor promote or enable it", () => {
    const target = user({ id: 1, role: 100 });
    expect(manageRefusal(admin, target, "disable")).toEqual({ message: USER_MSG.rootDisable, status: 403 });
    expect(manageRefusal(root, target, "delete")).toEqual({ message: USER_MSG.rootDelete, status: 403 });
    expect(manageRefusal(root, target, "demote")).toEqual({ message: USER_MSG.rootDemote, status: 403 });
    expect(manageRefusal(root, target, "promote")).toEqual({ message: USER_MSG.outranked, status: 403 });
    expect(manageRefusal(root, target, "enable")).toEqual({ message: USER_MSG.outranked, status: 403 });
  });

  it("lets an admin act only on users below its role, and never promote", () => {
    for (const action of USER_ACTIONS) {
      expect(manageRefusal(admin, user({ id: 3, role: 10 }), action), action).toEqual({ message: USER_MSG.outranked, status: 403 });
      expect(manageRefusal(admin, user({ id: 2, role: 10 }), action), `${action} self`).toEqual({
        message: USER_MSG.outranked,
        status: 403,
      });
    }
    expect(manageRefusal(admin, user(), "promote")).toEqual({ message: USER_MSG.promoteRootOnly, status: 403 });
    expect(manageRefusal(admin, user(), "disable")).toBeNull();
    expect(manageRefusal(admin, user({ status: 2 }), "enable")).toBeNull();
    expect(manageRefusal(admin, user(), "delete")).toBeNull();
  });

  it("lets root promote users and demote admins, each once", () => {
    expect(manageRefusal(root, user(), "promote")).toBeNull();
    expect(manageRefusal(root, user({ role: 10 }), "promote")).toEqual({ message: USER_MSG.alreadyAdmin, status: 400 });
    expect(manageRefusal(root, user({ role: 10 }), "demote")).toBeNull();
    expect(manageRefusal(root, user(), "demote")).toEqual({ message: USER_MSG.alreadyUser, status: 400 });
    expect(manageRefusal(root, user({ role: 10 }), "disable")).toBeNull();
  });

  it("refuses to enable a user of status 3", () => {
    expect(manageRefusal(root, user({ status: 3 }), "enable")).toEqual({ message: "该用户状态特殊，无法启用", status: 400 });
    expect(manageRefusal(root, user({ status: 3 }), "disable")).toBeNull();
  });

  it("lets an actor edit users below it, and root itself", () => {
    expect(editRefusal(admin, user())).toBeNull();
    expect(editRefusal(admin, { id: 3, role: 10 })).toBe(USER_MSG.outranked);
    expect(editRefusal(admin, { id: 2, role: 10 })).toBe(USER_MSG.outranked);
    expect(editRefusal(admin, { id: 1, role: 100 })).toBe(USER_MSG.outranked);
    expect(editRefusal(root, { id: 2, role: 10 })).toBeNull();
    expect(editRefusal(root, { id: 1, role: 100 })).toBeNull();
    expect(editRefusal({ id: 5, role: 100 }, { id: 1, role: 100 })).toBe(USER_MSG.outranked);
  });
});
