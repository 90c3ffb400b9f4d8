"use client";
// The redemption page's interactive part: search, add, copy selected, the table and its row
// actions. Rows come from the server component; every change goes through /api and then
// re-renders it.
import { Button, Stack, Title } from "@mantine/core";
import { useState } from "react";
import { ListButtons, ListToolbar, SearchField } from "@/components/data/list-toolbar";
import { PagedTable } from "@/components/data/paged-table";
import { useEditDrawer } from "@/components/data/use-edit-drawer";
import { useListUrl } from "@/components/data/use-list-url";
import { redemptionColumns } from "@/components/redemptions/redemption-columns";
import { RedemptionDrawer } from "@/components/redemptions/redemption-drawer";
import { useRedemptionActions } from "@/components/redemptions/use-redemption-actions";
import type { Page } from "@/lib/db/paging";
import type { RedemptionView } from "@/lib/redemptions/view";

export function RedemptionList({ page, keyword: initialKeyword }: { page: Page<RedemptionView>; keyword: string }) {
  const list = useListUrl();
  const actions = useRedemptionActions(page, list);
  const drawer = useEditDrawer(list.refresh);
  const [keyword, setKeyword] = useState(initialKeyword);

  const search = () => {
    actions.setSelected([]);
    list.update({ keyword });
  };

  return (
    <Stack gap="md">
      <Title order={3}>兑换码管理</Title>
      <ListToolbar onSearch={search} pending={list.pending}>
        <SearchField
          label="兑换码 ID 或名称"
          placeholder="搜索兑换码的 ID 和名称 ..."
          value={keyword}
          onChange={setKeyword}
          flex="1 1 220px"
        />
      </ListToolbar>
      <ListButtons add="添加兑换码" onAdd={drawer.openNew}>
        <Button variant="default" onClick={actions.copySelected}>
          复制所选兑换码
        </Button>
      </ListButtons>
      <PagedTable
        label="兑换码列表"
        page={page}
        columns={redemptionColumns(actions, drawer.openEdit)}
        list={list}
        selection={{ selected: actions.selected, onChange: actions.setSelected }}
        minWidth={980}
        empty="还没有兑换码，点击「添加兑换码」创建一个"
      />
      <RedemptionDrawer {...drawer.props} />
    </Stack>
  );
}
