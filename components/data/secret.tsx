"use client";
// A token's key or a redemption code in full: lists carry them masked, so the whole one is read
// from its item's route when the user views or copies it.
import { Button, Code, Group, Stack } from "@mantine/core";
import { modals } from "@mantine/modals";
import { copyText } from "@/components/data/copy";
import { api } from "@/lib/client/api";

/** The whole key of the item at `path` (GET answers it in `key`); null when the call failed. */
export async function readSecret(path: string): Promise<string | null> {
  const res = await api<{ key: string }>("GET", path);
  return res.success ? res.data.key : null;
}

/** A dialog with the whole key, wrapped, and a 复制 button. */
export function showSecret(title: string, secret: string) {
  modals.open({
    title,
    centered: true,
    children: (
      <Stack gap="sm">
        <Code block style={{ wordBreak: "break-all", whiteSpace: "pre-wrap" }}>
          {secret}
        </Code>
        <Group justify="flex-end">
          <Button variant="light" onClick={() => copyText(secret)}>
            复制
          </Button>
        </Group>
      </Stack>
    ),
  });
}
