// Toasts of the console (Mantine notifications), named like the original showError/showSuccess.
// A toast is the answer to what the user just did, so a new answer replaces the one on screen
// (issue 20.22: 用户名或密码错误 stayed up under 登录成功). Each answer goes to a slot: one toast
// per slot, updated in place. Callers that report several independent things at once (one result
// per channel of a batch) give each its own slot.
import { notifications, notificationsStore } from "@mantine/notifications";

/** The slot of every answer that names none. */
export const RESULT_SLOT = "result";

type Look = { color: string; autoClose: number };

const LOOKS = {
  error: { color: "red", autoClose: 5000 },
  success: { color: "teal", autoClose: 3000 },
  info: { color: "blue", autoClose: 4000 },
  warning: { color: "yellow", autoClose: 5000 },
} satisfies Record<string, Look>;

/** How many times each slot was filled, to restart its close timer (below). */
const fills = new Map<string, number>();

const onScreen = (id: string) => {
  const { notifications: shown, queue } = notificationsStore.getState();
  return shown.some((n) => n.id === id) || queue.some((n) => n.id === id);
};

function showIn(slot: string, message: string, look: Look) {
  const id = `toast-${slot}`;
  const n = (fills.get(slot) ?? 0) + 1;
  fills.set(slot, n);
  // Mantine restarts a toast's close timer only when its autoClose changes: alternating it by a
  // millisecond gives the new answer its full time.
  // The close button's name: Mantine's has none, and axe (tests/e2e/a11y.spec.ts) wants one.
  const data = { id, message, color: look.color, autoClose: look.autoClose + (n % 2), closeButtonProps: { "aria-label": "关闭通知" } };
  if (onScreen(id)) notifications.update(data);
  else notifications.show(data);
}

export function showError(message: string, slot = RESULT_SLOT) {
  showIn(slot, message, LOOKS.error);
}

export function showSuccess(message: string, slot = RESULT_SLOT) {
  showIn(slot, message, LOOKS.success);
}

export function showInfo(message: string, slot = RESULT_SLOT) {
  showIn(slot, message, LOOKS.info);
}

export function showWarning(message: string, slot = RESULT_SLOT) {
  showIn(slot, message, LOOKS.warning);
}
