"use client";
// The settings frame (spec §2 Settings): tabs named by ?tab=. Everyone has the personal tab; the
// super admin also has the operation, system, other and import (迁移) tabs (proxy.ts sends others away from them).
// A tab's data arrives only when it is the one asked for.
import { Stack, Tabs, Title } from "@mantine/core";
import { useListUrl } from "@/components/data/use-list-url";
import { OperationTab } from "@/components/settings/operation/operation-tab";
import type { OtherValues } from "@/components/settings/other/fields";
import { OtherSettings } from "@/components/settings/other/other-settings";
import { ImportTab } from "@/components/settings/import/import-tab";
import { PersonalSettings, type PersonalSettingsProps } from "@/components/settings/personal-settings";
import { SystemTab } from "@/components/settings/system/system-tab";
import { isRoot } from "@/lib/auth/roles";
import type { ListedOption } from "@/lib/options";
import type { OptionKey } from "@/lib/options/registry";

const TABS: { value: string; label: string; root?: boolean }[] = [
  { value: "personal", label: "个人设置" },
  { value: "operation", label: "运营设置", root: true },
  { value: "system", label: "系统设置", root: true },
  { value: "other", label: "其他设置", root: true },
  { value: "import", label: "迁移", root: true },
];

type Props = {
  requestedTab: string;
  /** Each root tab's options, for root asking for that tab only. */
  operation: Partial<Record<OptionKey, string>> | null;
  systemOptions: ListedOption[] | null;
  other?: OtherValues;
} & PersonalSettingsProps;

export function SettingsTabs({ requestedTab, operation, systemOptions, other, ...personal }: Props) {
  const list = useListUrl();
  const tabs = TABS.filter((t) => !t.root || isRoot(personal.self));
  const active = tabs.find((t) => t.value === requestedTab)?.value ?? "personal";

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
          <PersonalSettings {...personal} />
        </Tabs.Panel>
        {operation && (
          <Tabs.Panel value="operation" pt="md">
            <OperationTab options={operation} />
          </Tabs.Panel>
        )}
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
        {active === "import" && (
          <Tabs.Panel value="import" pt="md">
            <ImportTab />
          </Tabs.Panel>
        )}
      </Tabs>
    </Stack>
  );
}
