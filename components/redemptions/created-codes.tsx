"use client";
// After a create: the new codes, whole, in a dialog with copy and download again (the download
// starts by itself; this is for the admin who missed or refused it).
import { Button, Code, Group, Stack, Text } from "@mantine/core";
import { modals } from "@mantine/modals";
import { copyText } from "@/components/data/copy";
import { downloadText } from "@/components/data/download";
import { codesFile } from "@/lib/redemptions/form";

export function showCreatedCodes(name: string, codes: string[]) {
  const file = codesFile(name, codes);
  modals.open({
    title: `兑换码「${name}」`,
    centered: true,
    size: "lg",
    children: (
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          已创建 {codes.length} 个兑换码，并已下载为 {file.fileName}。
        </Text>
        <Code block aria-label="新建的兑换码" style={{ wordBreak: "break-all", whiteSpace: "pre-wrap", maxHeight: 320, overflow: "auto" }}>
          {codes.join("\n")}
        </Code>
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={() => downloadText(file.fileName, file.text)}>
            再次下载
          </Button>
          <Button variant="light" onClick={() => copyText(codes.join("\n"))}>
            复制全部
          </Button>
        </Group>
      </Stack>
    ),
  });
}
