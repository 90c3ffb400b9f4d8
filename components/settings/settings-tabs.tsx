"use client";
// The settings frame (spec §2 Settings): tabs named by ?tab=. Only tabs that are built are
// offered; a super admin who asks for one that is not built yet gets a notice and the personal tab.
import { Alert, Stack, Tabs, Title } from "@mantine/core";
import { useListUrl } from "@/components/data/use-list-url";
import { PersonalSettings, type PersonalSettingsProps } from "@/components/settings/personal-settings";
import { SystemTab } from "@/components/settings/system/system-tab";
import { isRoot } from "@/lib/auth/roles";
import type { ListedOption } from "@/lib/options";

const TABS = [{ value: "personal", label: "个人设置" }] as const;

/** The super admin's tabs that are built (proxy.ts sends others away from them). */
const ROOT_TABS = [{ value: "system", label: "系统设置" }] as const;

/** The super admin's tabs of the spec, not built yet. */
const PENDING_ROOT_TABS: Record<string, string> = { operation: "运营设置", other: "其他设置" };

export const pendingTabNotice = (label: string) => `「${label}」页面尚未开放，当前显示个人设置。`;

type Props = { requestedTab: string; systemOptions: ListedOption[] | null } & PersonalSettingsProps;

export function SettingsTabs({ requestedTab, systemOptions, ...personal }: Props) {
  const list = useListUrl();
  const tabs = isRoot(personal.self) ? [...TABS, ...ROOT_TABS] : TABS;
  const active = tabs.find((t) => t.value === requestedTab)?.value ?? "personal";
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
        <Tabs.Panel value="system" pt="md">
          {systemOptions && <SystemTab options={systemOptions} />}
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
