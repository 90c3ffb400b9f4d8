"use client";
// The settings frame (spec §2 Settings): tabs named by ?tab=. Only tabs that are built are
// offered; a super admin who asks for one that is not built yet gets a notice and the personal tab.
// The operation tab (root) gets its options from the page only while it is shown.
import { Alert, Stack, Tabs, Title } from "@mantine/core";
import { useListUrl } from "@/components/data/use-list-url";
import { PersonalSettings, type PersonalSettingsProps } from "@/components/settings/personal-settings";
import { RATIO_KEYS, RatioSettings, type RatioValues } from "@/components/settings/operation/ratio-settings";
import { SensitiveSettings, type SensitiveValues } from "@/components/settings/operation/sensitive-settings";
import { isRoot } from "@/lib/auth/roles";

const TABS = [{ value: "personal", label: "个人设置" }] as const;
const ROOT_TABS = [...TABS, { value: "operation", label: "运营设置" }] as const;

/** The super admin's tabs of the spec, not built yet (proxy.ts sends others away from them). */
const PENDING_ROOT_TABS: Record<string, string> = { system: "系统设置", other: "其他设置" };

const pick = <K extends string>(options: Record<string, string>, keys: readonly K[]) =>
  Object.fromEntries(keys.map((key) => [key, options[key] ?? ""])) as Record<K, string>;
const SENSITIVE_KEYS = ["CheckSensitiveEnabled", "CheckSensitiveOnPromptEnabled", "SensitiveWords"] as const;

export const pendingTabNotice = (label: string) => `「${label}」页面尚未开放，当前显示个人设置。`;

export function SettingsTabs({
  requestedTab,
  operationOptions,
  ...personal
}: { requestedTab: string; operationOptions: Record<string, string> | null } & PersonalSettingsProps) {
  const list = useListUrl();
  const root = isRoot(personal.self);
  const tabs = root ? ROOT_TABS : TABS;
  const active = tabs.find((t) => t.value === requestedTab && (t.value !== "operation" || operationOptions))?.value ?? "personal";
  const pending = root ? PENDING_ROOT_TABS[requestedTab] : undefined;

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
        {operationOptions && (
          <Tabs.Panel value="operation" pt="md">
            <Stack gap="md">
              <SensitiveSettings values={pick(operationOptions, SENSITIVE_KEYS) as SensitiveValues} />
              <RatioSettings values={pick(operationOptions, RATIO_KEYS) as RatioValues} />
            </Stack>
          </Tabs.Panel>
        )}
      </Tabs>
    </Stack>
  );
}
