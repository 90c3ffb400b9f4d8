"use client";
// The channel table's columns: status (with the auto-disable reason), response time, used and
// remaining balance (click to update), in-place priority and weight, and the row buttons.
import { ActionIcon, Badge, Button, Group, Menu, NumberInput, Stack, Text, Tooltip } from "@mantine/core";
import Link from "next/link";
import { useEffect, useState } from "react";
import type { ChannelActions } from "@/components/channels/use-channel-actions";
import { QuotaText, TimeText, useTimeZone } from "@/components/data/display";
import type { Column } from "@/components/data/paged-table";
import { RowIcon } from "@/components/data/row-icon";
import { Icon } from "@/components/icons";
import { CHANNEL_STATUS, parseOtherInfo, splitList } from "@/lib/channels/fields";
import { CHANNEL_FORM_MSG, channelStatusTag, channelTypeName, responseTimeTag } from "@/lib/channels/form";
import type { ChannelView } from "@/lib/channels/view";
import { api } from "@/lib/client/api";
import { formatTimestamp } from "@/lib/ui/format";
import { showSuccess } from "@/lib/client/notify";

type Ctx = { actions: ChannelActions; balanceTypes: number[]; refresh: () => void };

export function channelColumns({ actions, balanceTypes, refresh }: Ctx): Column<ChannelView>[] {
  return [
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
    {
      key: "status",
      title: "状态",
      render: (c) => (
        <Stack gap={4} align="flex-start">
          <Group gap={4} wrap="nowrap">
            <StatusTag ch={c} />
            <BreakerTag ch={c} />
          </Group>
          {c.keys ? (
            <Tooltip label={`多密钥（${c.multi_key_mode === "polling" ? "轮询" : "随机"}）：已启用 / 全部密钥`} withArrow>
              <Badge variant="outline" color={c.keys.enabled < c.keys.total ? "orange" : "gray"} tt="none" data-testid="channel-key-count">
                {c.keys.enabled}/{c.keys.total} 密钥
              </Badge>
            </Tooltip>
          ) : null}
        </Stack>
      ),
    },
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
                onClick={() => can && actions.balance.run(c)}
              >
                ${Number(c.balance ?? 0).toFixed(2)}
              </Badge>
            </Tooltip>
          </Group>
        );
      },
    },
    { key: "priority", title: "优先级", render: (c) => <InlineNumber ch={c} field="priority" min={-999} onSaved={refresh} /> },
    { key: "weight", title: "权重", render: (c) => <InlineNumber ch={c} field="weight" min={0} onSaved={refresh} /> },
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
                loading={actions.testing(c)}
                onClick={() => actions.test(c)}
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
                    <Menu.Item key={m} onClick={() => actions.test(c, m)}>
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
              loading={actions.balance.busy(c)}
              disabled={!balanceTypes.includes(c.type)}
              title={balanceTypes.includes(c.type) ? undefined : "该渠道类型不支持查询余额"}
              onClick={() => actions.balance.run(c)}
            >
              更新余额
            </Button>
            <Button
              size="compact-sm"
              variant="light"
              color={enabled ? "orange" : "green"}
              loading={actions.status.busy(c)}
              onClick={() => actions.status.run(c)}
            >
              {enabled ? "禁用" : "启用"}
            </Button>
            <Tooltip label="编辑" withArrow>
              <ActionIcon component={Link} href={`/channel/edit/${c.id}`} variant="subtle" aria-label="编辑">
                <Icon name="edit" size={16} />
              </ActionIcon>
            </Tooltip>
            <RowIcon label="删除" icon="trash" color="red" loading={actions.remove.busy(c)} onClick={() => actions.remove.run(c)} />
          </Group>
        );
      },
    },
  ];
}

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

/** The circuit breaker beside the status: 熔断中 until it reopens, 试探中 while a trial is due; nothing when closed. */
function BreakerTag({ ch }: { ch: ChannelView }) {
  const timeZone = useTimeZone();
  const b = ch.breaker;
  if (!b) return null;
  const open = b.state === "open";
  // The time of day is enough: a cool-down lasts at most a day.
  const reopensAt = formatTimestamp(b.until, timeZone).slice(11);
  return (
    <Tooltip
      withArrow
      multiline
      maw={320}
      label={
        <>
          {open ? "恢复时间：" : "冷却结束："}
          <TimeText seconds={b.until} />
          <br />
          最近失败：{b.reason || "未知"}
        </>
      }
    >
      <Badge color={open ? "orange" : "yellow"} variant="light" tt="none" data-testid={`breaker-${ch.id}`}>
        {open ? <>熔断中 至 {reopensAt}</> : "试探中"}
      </Badge>
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
