"use client";
// The channel page's interactive part: search, the toolbar (add, test all, update all balances,
// delete disabled, refresh, batch delete, fix), the background-run progress and the table with its
// in-place priority/weight and row actions. Rows come from the server component; every change goes
// through /api and then re-renders it.
import { ActionIcon, Badge, Button, Group, Menu, NumberInput, Select, Stack, Switch, Text, TextInput, Title, Tooltip } from "@mantine/core";
import Link from "next/link";
import { useEffect, useState } from "react";
import { ChannelJobsPanel, useChannelJobs } from "@/components/channels/channel-jobs";
import { confirmAction } from "@/components/data/confirm";
import { QuotaText, TimeText } from "@/components/data/display";
import { type Column, PagedTable } from "@/components/data/paged-table";
import { useListUrl } from "@/components/data/use-list-url";
import { Icon } from "@/components/icons";
import { api } from "@/lib/client/api";
import { showError, showSuccess } from "@/lib/client/notify";
import { readIdSort, writeIdSort } from "@/lib/client/storage";
import { CHANNEL_STATUS, parseOtherInfo, splitList } from "@/lib/channels/fields";
import { CHANNEL_FORM_MSG, channelStatusTag, channelTypeName, responseTimeTag } from "@/lib/channels/form";
import { CHANNEL_MSG } from "@/lib/channels/schemas";
import type { ChannelView } from "@/lib/channels/view";

export type ChannelPageData = { items: ChannelView[]; page: number; page_size: number; total: number };
type Filters = { keyword: string; group: string; model: string };

function StatusTag({ ch }: { ch: ChannelView }) {
  const tag = channelStatusTag(ch.status);
  const badge = (
    <Badge color={tag.color} variant="light">
      {tag.label}
    </Badge>
  );
  if (ch.status !== CHANNEL_STATUS.autoDisabled) return badge;
  const note = parseOtherInfo(ch.other_info);
  return (
    <Tooltip
      withArrow
      multiline
      maw={320}
      label={
        <>
          原因：{note.status_reason || "未知"}
          <br />
          时间：{note.status_time ? <TimeText seconds={note.status_time} /> : "未知"}
        </>
      }
    >
      {badge}
    </Tooltip>
  );
}

/** priority / weight, saved with PUT /api/channel/ on blur or Enter; the server's rule answers bad values. */
function InlineNumber({ ch, field, min, onSaved }: { ch: ChannelView; field: "priority" | "weight"; min: number; onSaved: () => void }) {
  const stored = ch[field];
  const [value, setValue] = useState<number | string>(stored);
  const [saving, setSaving] = useState(false);
  useEffect(() => setValue(stored), [stored]);
  const save = async () => {
    if (saving) return;
    const next = typeof value === "number" ? value : Number(value);
    if (value === "" || !Number.isInteger(next)) {
      setValue(stored);
      return;
    }
    if (next === stored) return;
    setSaving(true);
    const res = await api("PUT", "/api/channel/", { id: ch.id, [field]: next });
    setSaving(false);
    if (!res.success) {
      setValue(stored);
      return;
    }
    showSuccess(CHANNEL_FORM_MSG.done);
    onSaved();
  };
  return (
    <NumberInput
      aria-label={`${field === "priority" ? "优先级" : "权重"} ${ch.id}`}
      size="xs"
      w={84}
      value={value}
      onChange={setValue}
      onBlur={save}
      onKeyDown={(e) => {
        if (e.key === "Enter") e.currentTarget.blur();
      }}
      allowDecimal={false}
      min={min}
      clampBehavior="none"
      disabled={saving}
    />
  );
}

export function ChannelList(props: { page: ChannelPageData; filters: Filters; idSort: boolean; groups: string[]; balanceTypes: number[] }) {
  const { page, filters, groups, balanceTypes } = props;
  const list = useListUrl();
  const [keyword, setKeyword] = useState(filters.keyword);
  const [model, setModel] = useState(filters.model);
  const [group, setGroup] = useState(filters.group);
  const [idSort, setIdSort] = useState(props.idSort);
  const [batchMode, setBatchMode] = useState(false);
  const [selected, setSelected] = useState<number[]>([]);
  const [busy, setBusy] = useState<string | null>(null);
  const { jobs, start } = useChannelJobs(list.refresh);

  // Local storage is where the toggle lives (spec §3); the cookie only lets the server sort the same way.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, on mount
  useEffect(() => {
    const stored = readIdSort();
    if (stored !== props.idSort) {
      writeIdSort(stored);
      setIdSort(stored);
      list.refresh();
    }
  }, []);

  const run = async (key: string, action: () => Promise<void>) => {
    setBusy(key);
    try {
      await action();
    } finally {
      setBusy(null);
    }
  };

  const search = (event: React.FormEvent) => {
    event.preventDefault();
    setSelected([]);
    list.update({ keyword, model, group });
  };

  const toggleIdSort = (on: boolean) => {
    setIdSort(on);
    writeIdSort(on);
    list.refresh();
  };

  const test = (ch: ChannelView, testModel?: string) =>
    run(`test-${ch.id}`, async () => {
      const q = testModel ? `?model=${encodeURIComponent(testModel)}` : "";
      // Quiet: a failure is reported here with the channel's name, not as a bare upstream message.
      const res = await api("GET", `/api/channel/test/${ch.id}${q}`, undefined, { quiet: true });
      if (res.success) showSuccess(CHANNEL_FORM_MSG.tested(ch.name, Number(res.body.time) || 0));
      else if (res.httpStatus !== 401) showError(CHANNEL_FORM_MSG.testFailed(ch.name, res.message));
      list.refresh();
    });

  const updateBalance = (ch: ChannelView) =>
    run(`balance-${ch.id}`, async () => {
      const res = await api("GET", `/api/channel/update_balance/${ch.id}/`);
      if (!res.success) return;
      showSuccess(CHANNEL_FORM_MSG.balanceUpdated(ch.name));
      list.refresh();
    });

  const setStatus = (ch: ChannelView) =>
    run(`status-${ch.id}`, async () => {
      const status = ch.status === CHANNEL_STATUS.enabled ? CHANNEL_STATUS.manuallyDisabled : CHANNEL_STATUS.enabled;
      const res = await api("PUT", "/api/channel/", { id: ch.id, status });
      if (!res.success) return;
      showSuccess(CHANNEL_FORM_MSG.done);
      list.refresh();
    });

  const remove = async (ch: ChannelView) => {
    const ok = await confirmAction({
      title: `确定是否要删除渠道「${ch.name}」？`,
      message: "此修改将不可逆",
      confirmLabel: "删除",
      danger: true,
    });
    if (!ok) return;
    await run(`delete-${ch.id}`, async () => {
      const res = await api("DELETE", `/api/channel/${ch.id}/`);
      if (!res.success) return;
      showSuccess(CHANNEL_FORM_MSG.deleted);
      setSelected((ids) => ids.filter((id) => id !== ch.id));
      list.refresh();
    });
  };

  const deleteDisabled = async () => {
    const ok = await confirmAction({
      title: "确定是否要删除所有已禁用渠道？",
      message: "此修改将不可逆",
      confirmLabel: "删除",
      danger: true,
    });
    if (!ok) return;
    await run("disabled", async () => {
      const res = await api<number>("DELETE", "/api/channel/disabled");
      if (!res.success) return;
      showSuccess(CHANNEL_FORM_MSG.deletedDisabled(res.data));
      list.refresh();
    });
  };

  const deleteSelected = async () => {
    if (selected.length === 0) {
      showError(CHANNEL_MSG.noneSelected);
      return;
    }
    const ok = await confirmAction({
      title: `确定是否要删除所选的 ${selected.length} 个通道？`,
      message: "此修改将不可逆",
      confirmLabel: "删除",
      danger: true,
    });
    if (!ok) return;
    await run("batch", async () => {
      const res = await api<number>("POST", "/api/channel/batch", { ids: selected });
      if (!res.success) return;
      showSuccess(CHANNEL_FORM_MSG.deletedSelected(res.data));
      setSelected([]);
      list.refresh();
    });
  };

  const fix = () =>
    run("fix", async () => {
      const res = await api<number>("POST", "/api/channel/fix");
      if (!res.success) return;
      showSuccess(CHANNEL_FORM_MSG.fixed(res.data));
      list.refresh();
    });

  const columns: Column<ChannelView>[] = [
    { key: "id", title: "ID", render: (c) => c.id, width: 60 },
    {
      key: "name",
      title: "名称",
      render: (c) => (
        <Text size="sm" fw={500}>
          {c.name}
        </Text>
      ),
    },
    {
      key: "group",
      title: "分组",
      render: (c) => (
        <Group gap={4}>
          {splitList(c.group).map((g) => (
            <Badge key={g} variant="outline" color="gray" size="sm" tt="none">
              {g}
            </Badge>
          ))}
        </Group>
      ),
    },
    { key: "type", title: "类型", render: (c) => channelTypeName(c.type) },
    { key: "status", title: "状态", render: (c) => <StatusTag ch={c} /> },
    {
      key: "time",
      title: "响应时间",
      render: (c) => {
        const tag = responseTimeTag(c.response_time, c.status);
        return (
          <Badge color={tag.color} variant="light" tt="none">
            {tag.label}
          </Badge>
        );
      },
    },
    {
      key: "balance",
      title: "已用/剩余",
      render: (c) => {
        const can = balanceTypes.includes(c.type);
        return (
          <Group gap={4} wrap="nowrap">
            <Tooltip label="已用额度" withArrow>
              <Badge variant="light" color="gray" tt="none">
                <QuotaText quota={c.used_quota} />
              </Badge>
            </Tooltip>
            <Tooltip
              withArrow
              label={
                can ? (
                  <>
                    剩余余额，点击更新{c.balance_updated_time ? "（上次：" : ""}
                    {c.balance_updated_time ? <TimeText seconds={c.balance_updated_time} /> : null}
                    {c.balance_updated_time ? "）" : ""}
                  </>
                ) : (
                  "该渠道类型不支持查询余额"
                )
              }
            >
              <Badge
                component="button"
                type="button"
                variant="light"
                color={can ? "blue" : "gray"}
                tt="none"
                style={{ cursor: can ? "pointer" : "default" }}
                aria-label={`更新余额 ${c.id}`}
                onClick={() => can && updateBalance(c)}
              >
                ${Number(c.balance ?? 0).toFixed(2)}
              </Badge>
            </Tooltip>
          </Group>
        );
      },
    },
    { key: "priority", title: "优先级", render: (c) => <InlineNumber ch={c} field="priority" min={-999} onSaved={list.refresh} /> },
    { key: "weight", title: "权重", render: (c) => <InlineNumber ch={c} field="weight" min={0} onSaved={list.refresh} /> },
    {
      key: "actions",
      title: "操作",
      render: (c) => {
        const models = splitList(c.models);
        const enabled = c.status === CHANNEL_STATUS.enabled;
        return (
          <Group gap={4} wrap="nowrap">
            <Group gap={0} wrap="nowrap">
              <Button
                size="compact-sm"
                variant="light"
                loading={busy === `test-${c.id}`}
                onClick={() => test(c)}
                style={{ borderTopRightRadius: 0, borderBottomRightRadius: 0 }}
              >
                测试
              </Button>
              <Menu position="bottom-end" withinPortal shadow="md">
                <Menu.Target>
                  <ActionIcon
                    variant="light"
                    size={26}
                    aria-label={`选择测试模型 ${c.id}`}
                    style={{ borderTopLeftRadius: 0, borderBottomLeftRadius: 0 }}
                  >
                    <Icon name="dots" size={14} />
                  </ActionIcon>
                </Menu.Target>
                <Menu.Dropdown mah={300} style={{ overflowY: "auto" }}>
                  <Menu.Label>选择测试模型</Menu.Label>
                  {models.map((m) => (
                    <Menu.Item key={m} onClick={() => test(c, m)}>
                      {m}
                    </Menu.Item>
                  ))}
                </Menu.Dropdown>
              </Menu>
            </Group>
            <Button
              size="compact-sm"
              variant="light"
              color="cyan"
              loading={busy === `balance-${c.id}`}
              disabled={!balanceTypes.includes(c.type)}
              title={balanceTypes.includes(c.type) ? undefined : "该渠道类型不支持查询余额"}
              onClick={() => updateBalance(c)}
            >
              更新余额
            </Button>
            <Button
              size="compact-sm"
              variant="light"
              color={enabled ? "orange" : "green"}
              loading={busy === `status-${c.id}`}
              onClick={() => setStatus(c)}
            >
              {enabled ? "禁用" : "启用"}
            </Button>
            <Tooltip label="编辑" withArrow>
              <ActionIcon component={Link} href={`/channel/edit/${c.id}`} variant="subtle" aria-label="编辑">
                <Icon name="edit" size={16} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label="删除" withArrow>
              <ActionIcon variant="subtle" color="red" aria-label="删除" loading={busy === `delete-${c.id}`} onClick={() => remove(c)}>
                <Icon name="trash" size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        );
      },
    },
  ];

  return (
    <Stack gap="md">
      <Title order={3}>渠道管理</Title>
      <form onSubmit={search}>
        <Group gap="xs" align="flex-end" wrap="wrap">
          <TextInput
            aria-label="渠道 ID、名称或密钥"
            placeholder="搜索渠道的 ID、名称和密钥 ..."
            value={keyword}
            onChange={(e) => setKeyword(e.currentTarget.value)}
            leftSection={<Icon name="search" size={16} />}
            style={{ flex: "2 1 220px" }}
          />
          <TextInput
            aria-label="模型"
            placeholder="模型关键字"
            value={model}
            onChange={(e) => setModel(e.currentTarget.value)}
            style={{ flex: "1 1 140px" }}
          />
          <Select
            aria-label="分组"
            placeholder="全部分组"
            data={groups}
            value={group || null}
            onChange={(v) => setGroup(v ?? "")}
            clearable
            style={{ flex: "1 1 120px" }}
            comboboxProps={{ withinPortal: true }}
          />
          <Button type="submit" variant="light" loading={list.pending}>
            查询
          </Button>
        </Group>
      </form>
      <Group gap="xs" wrap="wrap">
        <Button component={Link} href="/channel/add" leftSection={<Icon name="plus" size={16} />}>
          添加渠道
        </Button>
        <Button variant="default" loading={!!jobs.test?.running} onClick={() => start("test")}>
          测试所有通道
        </Button>
        <Button variant="default" loading={!!jobs.balance?.running} onClick={() => start("balance")}>
          更新所有已启用通道余额
        </Button>
        <Button variant="default" color="red" loading={busy === "disabled"} onClick={deleteDisabled}>
          删除禁用通道
        </Button>
        <Button variant="default" leftSection={<Icon name="refresh" size={16} />} onClick={list.refresh}>
          刷新
        </Button>
        <Button variant="default" loading={busy === "fix"} onClick={fix}>
          修复数据库一致性
        </Button>
      </Group>
      <Group gap="md" wrap="wrap">
        <Switch label="ID 排序" checked={idSort} onChange={(e) => toggleIdSort(e.currentTarget.checked)} />
        <Switch
          label="批量删除"
          checked={batchMode}
          onChange={(e) => {
            setBatchMode(e.currentTarget.checked);
            setSelected([]);
          }}
        />
        {batchMode && (
          <Button size="xs" color="red" variant="light" loading={busy === "batch"} onClick={deleteSelected}>
            删除所选通道
          </Button>
        )}
      </Group>
      <ChannelJobsPanel jobs={jobs} />
      <PagedTable
        label="渠道列表"
        rows={page.items}
        columns={columns}
        total={page.total}
        page={page.page}
        pageSize={page.page_size}
        list={list}
        selection={batchMode ? { selected, onChange: setSelected } : undefined}
        dimmed={(c) => c.status !== CHANNEL_STATUS.enabled}
        minWidth={1250}
        empty="还没有渠道，点击「添加渠道」创建一个"
      />
    </Stack>
  );
}
