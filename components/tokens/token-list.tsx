"use client";
// The token page's interactive part: search, add, copy selected, the table and its row actions.
// Rows come from the server component; every change goes through /api and then re-renders it.
import { Alert, Button, Stack, TextInput, Title } from "@mantine/core";
import { useState } from "react";
import { ListButtons, ListToolbar, SearchField } from "@/components/data/list-toolbar";
import { PagedTable } from "@/components/data/paged-table";
import { useEditDrawer } from "@/components/data/use-edit-drawer";
import { useListUrl } from "@/components/data/use-list-url";
import { type Chats, tokenColumns } from "@/components/tokens/token-columns";
import { TokenDrawer } from "@/components/tokens/token-drawer";
import { TOKEN_LIST_MSG, useTokenActions } from "@/components/tokens/use-token-actions";
import type { Page } from "@/lib/db/paging";
import type { TokenView } from "@/lib/tokens/view";
import type { LegacyChatLink } from "@/lib/ui/chat-link";

type Props = {
  page: Page<TokenView>;
  filters: { keyword: string; token: string };
  chats: Chats;
  /** ChatLink and ChatLink2 when set: offered beside the Chats list, with the key in their fragment. */
  legacyChats: LegacyChatLink[];
  serverAddress: string;
  groups: Record<string, string>;
  groupsOffered: boolean;
  models: string[];
};

export function TokenList({ page, filters, chats, legacyChats, serverAddress, groups, groupsOffered, models }: Props) {
  const list = useListUrl();
  const actions = useTokenActions(page, list, serverAddress);
  const drawer = useEditDrawer(list.refresh);
  const [keyword, setKeyword] = useState(filters.keyword);
  const [token, setToken] = useState(filters.token);

  const search = () => {
    actions.setSelected([]);
    list.update({ keyword, token });
  };

  return (
    <Stack gap="md">
      <Title order={3}>令牌管理</Title>
      <Alert color="yellow" variant="light">
        {TOKEN_LIST_MSG.banner}
      </Alert>
      <ListToolbar onSearch={search} pending={list.pending}>
        <SearchField label="令牌名称" placeholder="搜索令牌的名称 ..." value={keyword} onChange={setKeyword} flex="1 1 180px" />
        <TextInput
          aria-label="令牌 key"
          placeholder="令牌（sk- 开头）"
          value={token}
          onChange={(e) => setToken(e.currentTarget.value)}
          style={{ flex: "1 1 180px" }}
        />
      </ListToolbar>
      <ListButtons add="添加令牌" onAdd={drawer.openNew}>
        <Button variant="default" onClick={actions.copySelected}>
          复制所选令牌
        </Button>
      </ListButtons>
      <PagedTable
        label="令牌列表"
        page={page}
        columns={tokenColumns({ actions, onEdit: drawer.openEdit, chats, legacyChats })}
        list={list}
        selection={{ selected: actions.selected, onChange: actions.setSelected }}
        minWidth={900}
        empty="还没有令牌，点击「添加令牌」创建一个"
      />
      <TokenDrawer {...drawer.props} groups={groups} groupsOffered={groupsOffered} models={models} />
    </Stack>
  );
}
