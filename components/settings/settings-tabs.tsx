"use client";
// The settings frame (spec §2 Settings): tabs named by ?tab=. Only tabs that are built are
// offered; a super admin who asks for one that is not built yet gets a notice and the personal tab.
import { Alert, Stack, Tabs, Title } from "@mantine/core";
import { useListUrl } from "@/components/data/use-list-url";
import { OperationTab } from "@/components/settings/operation/operation-tab";
import { PersonalSettings, type PersonalSettingsProps } from "@/components/settings/personal-settings";
import { isRoot } from "@/lib/auth/roles";
import type { OperationKey } from "@/lib/options/operation";

const TABS = [{ value: "personal", label: "个人设置" }] as const;
/** The super admin's built tabs (proxy.ts sends others away from them). */
const ROOT_TABS = [{ value: "operation", label: "运营设置" }] as const;

/** The super admin's tabs of the spec, not built yet. */
const PENDING_ROOT_TABS: Record<string, string> = { system: "系统设置", other: "其他设置" };

export const pendingTabNotice = (label: string) => `「${label}」页面尚未开放，当前显示个人设置。`;

type Props = {
  requestedTab: string;
  /** The operation tab's options (root asking for that tab only). */
  operation?: Record<OperationKey, string> | null;
} & PersonalSettingsProps;

export function SettingsTabs({ requestedTab, operation, ...personal }: Props) {
  const list = useListUrl();
  const tabs = isRoot(personal.self) ? [...TABS, ...ROOT_TABS] : TABS;
  const active: string = tabs.find((t) => t.value === requestedTab)?.value ?? "personal";
  const pending = isRoot(personal.self) ? PENDING_ROOT_TABS[requestedTab] : undefined;

  return (
    <Stack gap="md">
      <Title order={3}>设置</Title>
      <Tabs value={active} onChange={(tab) => tab && tab !== active && list.update({ tab })} keepMounted={false}>
        <Tabs.List>
          {tabs.map((t) => (
            <Tabs.Tab key={t.value} value={t.value}>
              {t.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="personal" pt="md">
          <Stack gap="md">
            {pending && (
              <Alert color="gray" variant="light">
                {pendingTabNotice(pending)}
              </Alert>
            )}
            <PersonalSettings {...personal} />
          </Stack>
        </Tabs.Panel>
        {operation && (
          <Tabs.Panel value="operation" pt="md">
            <OperationTab options={operation} />
          </Tabs.Panel>
        )}
      </Tabs>
    </Stack>
  );
}
