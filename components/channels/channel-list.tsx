"use client";
// The channel page's interactive part: search, the toolbar (add, test all, update all balances,
// delete disabled, refresh, batch delete, fix), the background-run progress and the table with its
// in-place priority/weight and row actions. Rows come from the server component; every change goes
// through /api and then re-renders it.
import { Button, Group, Select, Stack, Switch, TextInput, Title } from "@mantine/core";
import { useState } from "react";
import { channelColumns } from "@/components/channels/channel-columns";
import { ChannelJobsPanel, useChannelJobs } from "@/components/channels/channel-jobs";
import { useChannelActions } from "@/components/channels/use-channel-actions";
import { ListButtons, ListToolbar, SearchField } from "@/components/data/list-toolbar";
import { PagedTable } from "@/components/data/paged-table";
import { useListUrl } from "@/components/data/use-list-url";
import { Icon } from "@/components/icons";
import { CHANNEL_STATUS } from "@/lib/channels/fields";
import type { ChannelView } from "@/lib/channels/view";
import type { Page } from "@/lib/db/paging";

type Filters = { keyword: string; group: string; model: string };
type Props = { page: Page<ChannelView>; filters: Filters; idSort: boolean; groups: string[]; balanceTypes: number[] };

export function ChannelList({ page, filters, groups, balanceTypes, ...props }: Props) {
  const list = useListUrl();
  const actions = useChannelActions(list, props.idSort);
  const { jobs, start } = useChannelJobs(list.refresh);
  const [keyword, setKeyword] = useState(filters.keyword);
  const [model, setModel] = useState(filters.model);
  const [group, setGroup] = useState(filters.group);

  const search = () => {
    actions.setSelected([]);
    list.update({ keyword, model, group });
  };

  return (
    <Stack gap="md">
      <Title order={3}>渠道管理</Title>
      <ListToolbar onSearch={search} pending={list.pending}>
        <SearchField
          label="渠道 ID、名称或密钥"
          placeholder="搜索渠道的 ID、名称和密钥 ..."
          value={keyword}
          onChange={setKeyword}
          flex="2 1 220px"
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
      </ListToolbar>
      <ListButtons add="添加渠道" href="/channel/add">
        <Button variant="default" loading={!!jobs.test?.running} onClick={() => start("test")}>
          测试所有通道
        </Button>
        <Button variant="default" loading={!!jobs.balance?.running} onClick={() => start("balance")}>
          更新所有已启用通道余额
        </Button>
        <Button variant="default" color="red" loading={actions.deleteDisabled.busy()} onClick={() => actions.deleteDisabled.run()}>
          删除禁用通道
        </Button>
        <Button variant="default" leftSection={<Icon name="refresh" size={16} />} onClick={list.refresh}>
          刷新
        </Button>
        <Button variant="default" loading={actions.fix.busy()} onClick={() => actions.fix.run()}>
          修复数据库一致性
        </Button>
      </ListButtons>
      <Group gap="md" wrap="wrap">
        <Switch label="ID 排序" checked={actions.idSort} onChange={(e) => actions.toggleIdSort(e.currentTarget.checked)} />
        <Switch label="批量删除" checked={actions.batchMode} onChange={(e) => actions.toggleBatch(e.currentTarget.checked)} />
        {actions.batchMode && (
          <Button size="xs" color="red" variant="light" loading={actions.batch.busy()} onClick={actions.deleteSelected}>
            删除所选通道
          </Button>
        )}
      </Group>
      <ChannelJobsPanel jobs={jobs} />
      <PagedTable
        label="渠道列表"
        page={page}
        columns={channelColumns({ actions, balanceTypes, refresh: list.refresh })}
        list={list}
        selection={actions.batchMode ? { selected: actions.selected, onChange: actions.setSelected } : undefined}
        dimmed={(c) => c.status !== CHANNEL_STATUS.enabled}
        minWidth={1250}
        empty="还没有渠道，点击「添加渠道」创建一个"
      />
    </Stack>
  );
}
