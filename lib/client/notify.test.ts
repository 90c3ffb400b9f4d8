// The toasts' store (Mantine's, no browser needed): a new answer replaces the one on screen, and
// separate slots stand side by side (issue 20.22).
import { notifications, notificationsStore } from "@mantine/notifications";
import { beforeEach, describe, expect, it } from "vitest";
import { showError, showInfo, showSuccess } from "@/lib/client/notify";

const onScreen = () => notificationsStore.getState().notifications.map((n) => ({ message: n.message, color: n.color }));

describe("toasts", () => {
  beforeEach(() => notifications.clean());

  it("replace the stale answer: an error then a success leaves the success alone", () => {
    showError("用户名或密码错误");
    showSuccess("登录成功！");
    expect(onScreen()).toEqual([{ message: "登录成功！", color: "teal" }]);
    showInfo("你似乎并没有修改什么");
    expect(onScreen()).toEqual([{ message: "你似乎并没有修改什么", color: "blue" }]);
  });

  it("restart the close timer of a replaced toast, even with the same look", () => {
    showError("第一次");
    const first = notificationsStore.getState().notifications[0]?.autoClose;
    showError("第二次");
    const second = notificationsStore.getState().notifications[0]?.autoClose;
    expect(typeof first).toBe("number");
    expect(second).not.toBe(first);
  });

  it("keep one toast per slot, for results reported side by side", () => {
    showError("通道 a 测试失败", "channel-1");
    showSuccess("通道 b 测试成功", "channel-2");
    showError("通道 a 再次失败", "channel-1");
    expect(onScreen()).toEqual([
      { message: "通道 a 再次失败", color: "red" },
      { message: "通道 b 测试成功", color: "teal" },
    ]);
  });
});
