"use client";
// The cells the drawing and task tables share: tags as typed, the spend time (red over 60 s), the
// progress bar, a channel tag, a task id with its copy button, and long text cut to one line that
// opens in a dialog with a copy button.
import { Badge, type BadgeProps, Group, Progress, Stack, Text, UnstyledButton } from "@mantine/core";
import { modals } from "@mantine/modals";
import type { ReactNode } from "react";
import { CopyButton } from "@/components/data/copy";
import { TimeText } from "@/components/data/display";
import { type Look, progressPercent, spendColor, spendSeconds } from "@/lib/tasks/view";

/** A badge as typed (no capitals), never squeezed by the table. */
export function Tag(props: BadgeProps & { children: ReactNode }) {
  return <Badge tt="none" miw="max-content" {...props} />;
}

export const LookTag = ({ look }: { look: Look }) => (
  <Tag color={look.color} variant="light">
    {look.label}
  </Tag>
);

export const NoWrap = ({ children }: { children: ReactNode }) => <span style={{ whiteSpace: "nowrap" }}>{children}</span>;

/** A time in Unix milliseconds; "-" for none. */
export function MsTime({ ms }: { ms: number }) {
  return (
    <Text size="sm" style={{ whiteSpace: "nowrap" }}>
      {ms > 0 ? <TimeText seconds={Math.floor(ms / 1000)} /> : "-"}
    </Text>
  );
}

/** Submit to finish, or to when the list was read while the task runs. */
export function SpendTime({ row, now }: { row: { submit_time: number; finish_time: number; status: string }; now: number }) {
  const seconds = spendSeconds(row, now);
  if (seconds === null) return <Text size="sm">-</Text>;
  return (
    <Tag color={spendColor(seconds)} variant="light" data-spend={spendColor(seconds)}>
      {seconds.toFixed(1)} 秒
    </Tag>
  );
}

export function ProgressCell({ progress, failed }: { progress: string; failed: boolean }) {
  const percent = progressPercent(progress);
  if (percent === null) return <Text size="sm">-</Text>;
  return (
    <Group gap={6} wrap="nowrap" miw={110}>
      <Progress
        value={percent}
        color={failed ? "red" : percent >= 100 ? "green" : "blue"}
        w={64}
        size="sm"
        aria-label={`进度 ${percent}%`}
      />
      <Text size="xs" style={{ whiteSpace: "nowrap" }}>
        {percent}%
      </Text>
    </Group>
  );
}

export const ChannelTag = ({ id }: { id?: number }) => (id ? <Tag variant="default">{id}</Tag> : "");

/** A vendor's task id, in full, with a copy button. */
export function TaskId({ id }: { id: string }) {
  if (!id) return <Text size="sm">-</Text>;
  return (
    <Group gap={2} wrap="nowrap">
      <Text size="xs" ff="monospace" style={{ overflowWrap: "anywhere" }}>
        {id}
      </Text>
      <CopyButton value={id} label="复制任务ID" />
    </Group>
  );
}

/** The whole of a long text in a dialog, with a copy button. */
export function openTextDialog(title: string, text: string) {
  modals.open({
    title,
    centered: true,
    size: "lg",
    children: (
      <Stack gap="sm">
        <Text size="sm" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }} mah={400} ta="left">
          {text}
        </Text>
        <Group justify="flex-end">
          <CopyButton value={text} label={`复制${title}`} />
        </Group>
      </Stack>
    ),
  });
}

/** A long text cut to one line; a click opens it whole. "无" when empty. */
export function LongText({ title, text }: { title: string; text: string }) {
  if (!text) {
    return (
      <Text size="sm" c="dimmed">
        无
      </Text>
    );
  }
  return (
    <UnstyledButton onClick={() => openTextDialog(title, text)} title={`查看${title}`} aria-label={`查看${title}：${text}`} maw={160}>
      <Text size="sm" truncate="end" maw={160}>
        {text}
      </Text>
    </UnstyledButton>
  );
}
