"use client";
// 登录会话: every place the account is signed in (device, how, from where, when last seen), with
// 退出 per session and 退出其他所有会话. Rows are cards rather than a table, so a phone shows each
// session whole at 390 px.
import { Alert, Badge, Button, Center, Group, Loader, Paper, Stack, Text, Tooltip } from "@mantine/core";
import { useTimeZone } from "@/components/data/display";
import { SettingCard } from "@/components/settings/setting-card";
import { useSessions } from "@/components/settings/use-sessions";
import type { OwnSession } from "@/lib/accounts/sessions";
import { signInMethodLabel } from "@/lib/accounts/session-labels";
import { formatTimestamp } from "@/lib/ui/format";
import { relativeTime } from "@/lib/ui/relative-time";

export function SessionsCard() {
  const { list, busy, reload, end, endOthers } = useSessions();
  const others = list.state === "ready" ? list.sessions.filter((s) => !s.current).length : 0;
  return (
    <SettingCard title="登录会话" description="以下是当前登录了你账户的设备。如果有不认识的会话，请退出它并修改密码。">
      {list.state === "loading" && (
        <Center py="md">
          <Loader size="sm" aria-label="加载中" />
        </Center>
      )}
      {list.state === "error" && (
        <Alert color="red" variant="light" title="加载会话失败">
          <Group justify="space-between" gap="xs">
            <Text size="sm">{list.message}</Text>
            <Button size="xs" variant="default" onClick={reload}>
              重试
            </Button>
          </Group>
        </Alert>
      )}
      {list.state === "ready" && list.sessions.length === 0 && (
        <Text size="sm" c="dimmed" ta="center" py="md">
          暂无登录会话
        </Text>
      )}
      {list.state === "ready" && list.sessions.length > 0 && (
        <Stack gap="xs" role="list" aria-label="登录会话列表">
          {list.sessions.map((session) => (
            <SessionRow key={session.id} session={session} busy={busy === session.id} onEnd={() => end(session)} />
          ))}
        </Stack>
      )}
      {list.state === "ready" && (
        <Group>
          <Button variant="light" color="red" disabled={others === 0} loading={busy === "others"} onClick={endOthers}>
            退出其他所有会话
          </Button>
        </Group>
      )}
    </SettingCard>
  );
}

function SessionRow({ session, busy, onEnd }: { session: OwnSession; busy: boolean; onEnd: () => void }) {
  const zone = useTimeZone();
  const now = Math.floor(Date.now() / 1000);
  return (
    <Paper withBorder p="sm" radius="sm" role="listitem" aria-label={session.device} data-session-id={session.id}>
      <Group justify="space-between" gap="sm" wrap="nowrap" align="flex-start">
        <Stack gap={2} miw={0}>
          <Group gap={6}>
            <Tooltip label={session.user_agent || "未知"} multiline maw={360} withinPortal>
              <Text fw={600} size="sm" style={{ overflowWrap: "anywhere" }}>
                {session.device}
              </Text>
            </Tooltip>
            {session.current && (
              <Badge size="sm" variant="light" color="green">
                当前会话
              </Badge>
            )}
          </Group>
          <Text size="sm" c="dimmed" style={{ overflowWrap: "anywhere" }}>
            {signInMethodLabel(session.method)} · {session.ip || "未知 IP"}
          </Text>
          <Text size="xs" c="dimmed">
            最近活动{" "}
            <Tooltip label={formatTimestamp(session.last_seen, zone)} withinPortal>
              <span>{relativeTime(session.last_seen, now, zone)}</span>
            </Tooltip>{" "}
            · 登录于 {formatTimestamp(session.created_at, zone)}
          </Text>
        </Stack>
        <Button size="xs" variant="subtle" color="red" loading={busy} onClick={onEnd} aria-label={`退出 ${session.device}`}>
          退出
        </Button>
      </Group>
    </Paper>
  );
}
