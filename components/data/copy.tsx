"use client";
// Copying to the clipboard (spec §8): a success toast, or, where the browser refuses (no secure
// context, no permission), a dialog with the text selected for a manual copy.
import { ActionIcon, Button, Stack, Text, Textarea, Tooltip } from "@mantine/core";
import { modals } from "@mantine/modals";
import { useState } from "react";
import { IconCheck, IconCopy } from "@/components/icons";
import { showSuccess } from "@/lib/client/notify";

export const COPY_MSG = {
  copied: "已复制到剪贴板！",
  manual: "无法复制到剪贴板，请手动复制",
} as const;

export async function copyText(text: string, success: string = COPY_MSG.copied): Promise<boolean> {
  try {
    if (!navigator.clipboard) throw new Error("no clipboard");
    await navigator.clipboard.writeText(text);
    showSuccess(success);
    return true;
  } catch {
    modals.open({
      title: COPY_MSG.manual,
      centered: true,
      children: (
        <Stack gap="xs">
          <Text size="sm" c="dimmed">
            请选中下面的内容后按 Ctrl+C（或 ⌘+C）复制。
          </Text>
          <Textarea value={text} readOnly autosize minRows={2} maxRows={10} onFocus={(e) => e.currentTarget.select()} data-autofocus />
          <Button variant="default" onClick={() => modals.closeAll()}>
            关闭
          </Button>
        </Stack>
      ),
    });
    return false;
  }
}

/** An icon button that copies `value`, with a short ✓ after success. */
export function CopyButton({ value, label = "复制" }: { value: string | (() => Promise<string | null>); label?: string }) {
  const [done, setDone] = useState(false);
  const onClick = async () => {
    const text = typeof value === "string" ? value : await value();
    if (text === null) return;
    if (await copyText(text)) {
      setDone(true);
      setTimeout(() => setDone(false), 1500);
    }
  };
  return (
    <Tooltip label={done ? "已复制" : label} withArrow>
      <ActionIcon variant="subtle" color={done ? "teal" : "gray"} onClick={onClick} aria-label={label}>
        {done ? <IconCheck size={16} /> : <IconCopy size={16} />}
      </ActionIcon>
    </Tooltip>
  );
}
