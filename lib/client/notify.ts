// Toasts of the console (Mantine notifications), named like the original showError/showSuccess.
import { notifications } from "@mantine/notifications";

export function showError(message: string) {
  notifications.show({ color: "red", message, autoClose: 5000 });
}

export function showSuccess(message: string) {
  notifications.show({ color: "teal", message, autoClose: 3000 });
}

export function showInfo(message: string) {
  notifications.show({ color: "blue", message, autoClose: 4000 });
}

export function showWarning(message: string) {
  notifications.show({ color: "yellow", message, autoClose: 5000 });
}
