"use client";
// The admin's user lookup from a log row (spec §3): username, quota, used quota, request count and
// group, read through GET /api/user/{id}.
import { Table } from "@mantine/core";
import { modals } from "@mantine/modals";
import { QuotaText } from "@/components/data/display";
import { api } from "@/lib/client/api";
import type { UserView } from "@/lib/users/view";

export async function openUserLookup(userId: number, username: string) {
  const res = await api<UserView>("GET", `/api/user/${userId}`);
  if (!res.success) return;
  const user = res.data;
  const rows: [string, React.ReactNode][] = [
    ["用户名", user.username],
    ["剩余额度", <QuotaText key="quota" quota={user.quota} />],
    ["已用额度", <QuotaText key="used" quota={user.used_quota} />],
    ["请求次数", user.request_count],
    ["分组", user.group],
  ];
  modals.open({
    title: `用户信息：${username}`,
    centered: true,
    children: (
      <Table aria-label="用户信息" variant="vertical" withTableBorder>
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th w={120}>{label}</Table.Th>
              <Table.Td>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    ),
  });
}
