"use client";
// Operation tab, sensitive words (spec §9): the two switches and the word list, one word a line.
// The relay refuses a prompt containing a listed word (lib/relay/request/sensitive.ts), ignoring case.
import { Button, Group, Stack, Switch, Textarea } from "@mantine/core";
import { useState } from "react";
import { SettingCard } from "@/components/settings/setting-card";
import { changedOptions, OPTION_MSG, saveOptions } from "@/lib/client/options";
import { showInfo, showSuccess } from "@/lib/client/notify";

export type SensitiveValues = {
  CheckSensitiveEnabled: string;
  CheckSensitiveOnPromptEnabled: string;
  SensitiveWords: string;
};

export function SensitiveSettings({ values: initial }: { values: SensitiveValues }) {
  const [saved, setSaved] = useState(initial);
  const [values, setValues] = useState(initial);
  const [saving, setSaving] = useState(false);
  const set = (key: keyof SensitiveValues, value: string) => setValues((v) => ({ ...v, [key]: value }));

  const save = async () => {
    const changed = changedOptions(values, saved);
    if (Object.keys(changed).length === 0) return showInfo(OPTION_MSG.unchanged);
    setSaving(true);
    const { ok, saved: done } = await saveOptions(changed);
    setSaving(false);
    // What was saved before a refusal stays saved.
    setSaved((s) => ({ ...s, ...Object.fromEntries(done.map((k) => [k, values[k as keyof typeof values]])) }));
    if (!ok) return;
    showSuccess("屏蔽词过滤设置已保存");
  };

  return (
    <SettingCard
      title="屏蔽词过滤设置"
      description="开启后，请求内容（消息、prompt、input）含有列表中的词时直接拒绝，不计费；匹配不区分大小写。"
    >
      <Stack gap="sm">
        <Group gap="xl">
          <Switch
            label="启用屏蔽词过滤功能"
            checked={values.CheckSensitiveEnabled === "true"}
            onChange={(e) => set("CheckSensitiveEnabled", String(e.currentTarget.checked))}
          />
          <Switch
            label="启用 Prompt 检查"
            checked={values.CheckSensitiveOnPromptEnabled === "true"}
            onChange={(e) => set("CheckSensitiveOnPromptEnabled", String(e.currentTarget.checked))}
          />
        </Group>
        <Textarea
          label="屏蔽词列表"
          description="一行一个屏蔽词，不需要符号分割"
          autosize
          minRows={6}
          maxRows={16}
          value={values.SensitiveWords}
          onChange={(e) => set("SensitiveWords", e.currentTarget.value)}
          styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
        />
        <Group>
          <Button onClick={save} loading={saving}>
            保存屏蔽词过滤设置
          </Button>
        </Group>
      </Stack>
    </SettingCard>
  );
}
