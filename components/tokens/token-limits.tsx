"use client";
// The token list's 限制 cell: a key with its own limits shows a button that opens each limit's use
// now (used / limit with a bar). The numbers are fetched from /api/token/:id/limits on every
// opening, never for the rows of a page load.
import { Alert, Button, Loader, Popover, Progress, Stack, Group, Text } from "@mantine/core";
import { useWindowEvent } from "@mantine/hooks";
import { useState } from "react";
import { TimeText, useQuotaDisplay } from "@/components/data/display";
import { api } from "@/lib/client/api";
import type { KeyLimitUsage } from "@/lib/limits/types";
import { countKeyLimits, limitColor, limitRows } from "@/lib/tokens/limit-rows";
import type { TokenView } from "@/lib/tokens/view";

type Loaded = { state: "loading" } | { state: "error"; message: string } | { state: "done"; usage: KeyLimitUsage };

export function TokenLimitsCell({ token }: { token: TokenView }) {
  const [opened, setOpened] = useState(false);
  const [loaded, setLoaded] = useState<Loaded>({ state: "loading" });
  // Escape closes it wherever the focus is (Mantine's own handler needs the focus inside it).
  useWindowEvent("keydown", (event) => {
    if (opened && event.key === "Escape") setOpened(false);
  });
  const count = countKeyLimits(token);
  if (count === 0) {
    return (
      <Text size="sm" c="dimmed">
        不限
      </Text>
    );
  }
  const toggle = async () => {
    if (opened) return setOpened(false);
    setOpened(true);
    setLoaded({ state: "loading" });
    const res = await api<KeyLimitUsage>("GET", `/api/token/${token.id}/limits`, undefined, { quiet: true });
    setLoaded(res.success ? { state: "done", usage: res.data } : { state: "error", message: res.message });
  };
  return (
    <Popover opened={opened} onChange={setOpened} width={280} position="bottom" withArrow shadow="md" withinPortal trapFocus returnFocus>
      <Popover.Target>
        <Button size="compact-sm" variant="light" color="grape" onClick={toggle} aria-label={`${token.name} 的限制`}>
          {count} 项限制
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <LimitUsage loaded={loaded} />
      </Popover.Dropdown>
    </Popover>
  );
}

function LimitUsage({ loaded }: { loaded: Loaded }) {
  const display = useQuotaDisplay();
  if (loaded.state === "loading") {
    return (
      <Group justify="center" py="sm">
        <Loader size="sm" aria-label="加载中" />
      </Group>
    );
  }
  if (loaded.state === "error") {
    return (
      <Alert color="red" variant="light" p="xs">
        {loaded.message || "加载失败"}
      </Alert>
    );
  }
  const rows = limitRows(loaded.usage, display);
  if (rows.length === 0) return <Text size="sm">没有限制</Text>;
  return (
    <Stack gap="sm" aria-label="当前用量">
      {rows.map((row) => (
        <div key={row.label}>
          <Group justify="space-between" gap="xs" wrap="nowrap">
            <Text size="sm">{row.label}</Text>
            <Text size="sm" fw={500} ff="monospace">
              {row.text}
            </Text>
          </Group>
          <Progress value={row.percent} color={limitColor(row.percent)} size="sm" mt={4} aria-label={`${row.label} ${row.text}`} />
          {row.period && (
            <Text size="xs" c="dimmed" mt={2}>
              {row.period.label} · 重置于 <TimeText seconds={row.period.resetAt} />
            </Text>
          )}
          {row.resetSeconds !== undefined && (
            <Text size="xs" c="dimmed" mt={2}>
              {row.resetSeconds} 秒后恢复
            </Text>
          )}
        </div>
      ))}
    </Stack>
  );
}
