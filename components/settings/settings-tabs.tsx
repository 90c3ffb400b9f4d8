"use client";
// The settings frame (spec §2 Settings): tabs named by ?tab=. Only tabs that are built are
// offered; a super admin who asks for one that is not built yet gets a notice and the personal tab.
import { Alert, Stack, Tabs, Title } from "@mantine/core";
import { useListUrl } from "@/components/data/use-list-url";
import { OtherSettings } from "@/components/settings/other/other-settings";
import type { OtherValues } from "@/components/settings/other/fields";
import { PersonalSettings, type PersonalSettingsProps } from "@/components/settings/personal-settings";
import { SystemTab } from "@/components/settings/system/system-tab";
import { isRoot } from "@/lib/auth/roles";
import type { ListedOption } from "@/lib/options";

const TABS: { value: string; label: string; root?: boolean }[] = [
  { value: "personal", label: "个人设置" },
  { value: "system", label: "系统设置", root: true },
  { value: "other", label: "其他设置", root: true },
];

/** The super admin's tabs of the spec, not built yet (proxy.ts sends others away from them). */
const PENDING_ROOT_TABS: Record<string, string> = { operation: "运营设置" };

export const pendingTabNotice = (label: string) => `「${label}」页面尚未开放，当前显示个人设置。`;

type Props = { requestedTab: string; systemOptions: ListedOption[] | null; other?: OtherValues } & PersonalSettingsProps;

export function SettingsTabs({ requestedTab, systemOptions, other, ...personal }: Props) {
  const list = useListUrl();
  const tabs = TABS.filter((t) => !t.root || isRoot(personal.self));
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
        {systemOptions && (
          <Tabs.Panel value="system" pt="md">
            <SystemTab options={systemOptions} />
          </Tabs.Panel>
        )}
        {other && (
          <Tabs.Panel value="other" pt="md">
            <OtherSettings values={other} />
          </Tabs.Panel>
        )}
      </Tabs>
    </Stack>
  );
}
