"use client";
// Operation tab, sensitive words (spec §9): the two switches and the word list, one word a line,
// as the option registry's "sensitive" section describes them. The relay refuses a prompt
// containing a listed word (lib/relay/request/sensitive.ts), ignoring case.
import { Button, Group, Stack, Switch, Textarea } from "@mantine/core";
import { SettingCard } from "@/components/settings/setting-card";
import { useOptionsForm } from "@/lib/client/options";
import { type OptionKey, sectionFields } from "@/lib/options/registry";

export function SensitiveSettings({ values: initial }: { values: Partial<Record<OptionKey, string>> }) {
  const fields = sectionFields("sensitive");
  const form = useOptionsForm({
    initial: Object.fromEntries(fields.map((f) => [f.key, initial[f.key] ?? ""])) as Record<OptionKey, string>,
    success: "屏蔽词过滤设置已保存",
  });
  const { values, set } = form;

  return (
    <SettingCard
      title="屏蔽词过滤设置"
      description="开启后，请求内容（消息、prompt、input）含有列表中的词时直接拒绝，不计费；匹配不区分大小写。"
    >
      <Stack gap="sm">
        <Group gap="xl">
          {fields
            .filter((f) => f.input === "switch")
            .map((f) => (
              <Switch
                key={f.key}
                label={f.label}
                checked={values[f.key] === "true"}
                onChange={(e) => set(f.key, String(e.currentTarget.checked))}
              />
            ))}
        </Group>
        {fields
          .filter((f) => f.input === "lines")
          .map((f) => (
            <Textarea
              key={f.key}
              label={f.label}
              description={f.description}
              autosize
              minRows={6}
              maxRows={16}
              value={values[f.key]}
              error={form.errors[f.key]}
              onChange={(e) => set(f.key, e.currentTarget.value)}
              styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
            />
          ))}
        <Group>
          <Button onClick={form.save} loading={form.saving}>
            保存屏蔽词过滤设置
          </Button>
        </Group>
      </Stack>
    </SettingCard>
  );
}
