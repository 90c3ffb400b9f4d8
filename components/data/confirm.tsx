"use client";
// The console's confirm dialog (Mantine modals): resolves true when the user confirms.
import { Text } from "@mantine/core";
import { modals } from "@mantine/modals";
import type { ReactNode } from "react";

export type ConfirmOptions = {
  title: ReactNode;
  message?: ReactNode;
  confirmLabel?: string;
  /** Red confirm button, for what cannot be undone. */
  danger?: boolean;
};

export function confirmAction({ title, message, confirmLabel = "确定", danger = false }: ConfirmOptions): Promise<boolean> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (value: boolean) => {
      if (settled) return;
      settled = true;
      resolve(value);
    };
    modals.openConfirmModal({
      title,
      centered: true,
      children: typeof message === "string" ? <Text size="sm">{message}</Text> : message,
      labels: { confirm: confirmLabel, cancel: "取消" },
      confirmProps: { color: danger ? "red" : undefined },
      onConfirm: () => settle(true),
      onCancel: () => settle(false),
      onClose: () => settle(false),
    });
  });
}
