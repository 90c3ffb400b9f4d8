"use client";
// The log table's columns: per role (channel, user and retries for an admin), each row's details
// behind its chevron; badges as typed and never squeezed.
import { ActionIcon, Anchor, Badge, type BadgeProps, Group, Text, Tooltip } from "@mantine/core";
import { QuotaText, TimeText } from "@/components/data/display";
import type { Column } from "@/components/data/paged-table";
import { Icon } from "@/components/icons";
import { openUserLookup } from "@/components/logs/user-lookup";
import { firstTokenColor, firstTokenSeconds, latencyColor, parseOther, retryChain, logTypeLook } from "@/lib/logs/display";
import type { AdminLogItem } from "@/lib/logs/query";
import { LOG_TYPE } from "@/lib/logs/write";

/** A row as the table holds it: self rows get a place-in-list id and channel 0. */
export type LogRow = AdminLogItem;

type Ctx = { admin: boolean; isOpen: (id: number) => boolean; toggle: (id: number) => void };

export function logColumns({ admin, isOpen, toggle }: Ctx): Column<LogRow>[] {
  return [
    {
      key: "expand",
      title: "",
      width: 36,
      render: (row) => (
        <ActionIcon
          variant="subtle"
          color="gray"
          size="sm"
          aria-label={isOpen(row.id) ? "收起详情" : "展开详情"}
          aria-expanded={isOpen(row.id)}
          onClick={() => toggle(row.id)}
        >
          <span style={{ display: "inline-flex", transform: isOpen(row.id) ? "none" : "rotate(-90deg)", transition: "transform 120ms" }}>
            <Icon name="chevronDown" size={14} />
          </span>
        </ActionIcon>
      ),
    },
    {
      key: "time",
      title: <NoWrap>时间</NoWrap>,
      render: (row) => (
        <Text size="sm" style={{ whiteSpace: "nowrap" }}>
          <TimeText seconds={row.created_at} />
        </Text>
      ),
    },
    ...(admin
      ? ([
          {
            key: "channel",
            title: <NoWrap>渠道</NoWrap>,
            render: (row) => (row.channel ? <Tag variant="default">{row.channel}</Tag> : ""),
          },
          {
            key: "user",
            title: <NoWrap>用户</NoWrap>,
            render: (row) =>
              row.username ? (
                <Anchor component="button" type="button" size="sm" onClick={() => openUserLookup(row.user_id, row.username)}>
                  {row.username}
                </Anchor>
              ) : (
                ""
              ),
          },
        ] satisfies Column<LogRow>[])
      : []),
    { key: "token", title: <NoWrap>令牌</NoWrap>, render: (row) => (row.token_name ? <Tag variant="light">{row.token_name}</Tag> : "") },
    {
      key: "type",
      title: <NoWrap>类型</NoWrap>,
      render: (row) => {
        const look = logTypeLook(row.type);
        return (
          <Tag color={look.color} variant="light">
            {look.label}
          </Tag>
        );
      },
    },
    { key: "model", title: <NoWrap>模型</NoWrap>, render: (row) => (row.model_name ? <Tag variant="outline">{row.model_name}</Tag> : "") },
    { key: "latency", title: <NoWrap>用时/首字</NoWrap>, render: (row) => <Latency row={row} /> },
    {
      key: "prompt",
      title: <NoWrap>提示</NoWrap>,
      align: "right",
      render: (row) => (row.type === LOG_TYPE.consume ? row.prompt_tokens : ""),
    },
    {
      key: "completion",
      title: <NoWrap>补全</NoWrap>,
      align: "right",
      render: (row) => (row.type === LOG_TYPE.consume ? row.completion_tokens : ""),
    },
    {
      key: "quota",
      title: <NoWrap>花费</NoWrap>,
      align: "right",
      render: (row) =>
        row.type === LOG_TYPE.consume || row.quota !== 0 ? (
          <QuotaText quota={row.quota} digits={row.type === LOG_TYPE.consume ? 6 : 2} />
        ) : (
          ""
        ),
    },
    ...(admin
      ? ([{ key: "retry", title: <NoWrap>重试</NoWrap>, render: (row) => <RetryChain other={row.other} /> }] satisfies Column<LogRow>[])
      : []),
    {
      key: "content",
      title: <NoWrap>详情</NoWrap>,
      render: (row) => (
        <Text size="sm" lineClamp={1} maw={280} title={row.content}>
          {row.content}
        </Text>
      ),
    },
  ];
}

/** A badge as the log's cells use it: as typed (no capitals), never squeezed by the table. */
function Tag(props: BadgeProps & { children: React.ReactNode }) {
  return <Badge tt="none" miw="max-content" {...props} />;
}

const NoWrap = ({ children }: { children: React.ReactNode }) => <span style={{ whiteSpace: "nowrap" }}>{children}</span>;

/** use_time coloured per spec §9, the first-token time beside it, and the stream tag. */
function Latency({ row }: { row: LogRow }) {
  if (row.type !== LOG_TYPE.consume && row.type !== LOG_TYPE.error) return null;
  const frt = row.is_stream ? firstTokenSeconds(parseOther(row.other)) : null;
  return (
    <Group gap={4} wrap="nowrap">
      <Tag color={latencyColor(row.use_time)} variant="light">
        {row.use_time} s
      </Tag>
      {frt !== null && (
        <Tooltip label="首字时间" withArrow>
          <Tag color={firstTokenColor(frt)} variant="light">
            {frt.toFixed(1)} s
          </Tag>
        </Tooltip>
      )}
      <Tag color={row.is_stream ? "blue" : "gray"} variant="outline">
        {row.is_stream ? "流" : "非流"}
      </Tag>
    </Group>
  );
}

/** The channels tried, when more than one was: "3 → 7". */
function RetryChain({ other }: { other: string }) {
  const chain = retryChain(parseOther(other));
  if (chain.length < 2) return null;
  return (
    <Text size="sm" style={{ whiteSpace: "nowrap" }}>
      渠道：{chain.join(" → ")}
    </Text>
  );
}
