"use client";
// One field of the "other" tab: its own form, saved with PUT /api/option/ (the API's own call),
// with a preview that renders exactly as the site will (the one sanitizer, or the embedded page).
import { Box, Button, Group, Image, Paper, Tabs, Text, Textarea, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { AdminContent } from "@/components/content/admin-content";
import { AdminHtml } from "@/components/content/admin-html";
import { type OtherField, OTHER_MSG } from "@/components/settings/other/fields";
import { SettingCard } from "@/components/settings/setting-card";
import { OPTION_MSG, saveOption } from "@/lib/client/options";
import { showSuccess } from "@/lib/client/notify";
import { refreshStatus } from "@/lib/client/session";

function Preview({ field, value }: { field: OtherField; value: string }) {
  if (!value.trim()) {
    return (
      <Text c="dimmed" size="sm">
        {OTHER_MSG.empty}
      </Text>
    );
  }
  if (field.embeds) return <AdminContent content={value} title={`${field.title}${OTHER_MSG.preview}`} height="420px" />;
  return <AdminHtml source={value} className={field.key === "Footer" ? "custom-footer" : "admin-content"} />;
}

export function OtherFieldCard({ field, initial }: { field: OtherField; initial: string }) {
  const [saving, setSaving] = useState(false);
  const [view, setView] = useState<string | null>("edit");
  const form = useForm({ mode: "controlled", initialValues: { value: initial } });

  const submit = async ({ value }: { value: string }) => {
    setSaving(true);
    const ok = await saveOption(field.key, value);
    setSaving(false);
    if (!ok) return;
    form.resetDirty({ value });
    showSuccess(OPTION_MSG.saved);
    if (field.inStatus) await refreshStatus();
  };

  // The card's title names the field; a label is shown only when it says more (Logo 图片地址).
  const label = field.label === field.title ? { "aria-label": field.label } : { label: field.label };
  const input = field.multiline ? (
    <Textarea
      {...label}
      placeholder={field.placeholder}
      autosize
      minRows={4}
      maxRows={16}
      styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
      key={form.key("value")}
      {...form.getInputProps("value")}
    />
  ) : (
    <TextInput {...label} placeholder={field.placeholder} key={form.key("value")} {...form.getInputProps("value")} />
  );

  return (
    <SettingCard title={field.title}>
      <form noValidate onSubmit={form.onSubmit(submit)}>
        {field.multiline ? (
          <Tabs value={view} onChange={setView} variant="outline" keepMounted={false}>
            <Tabs.List>
              <Tabs.Tab value="edit">{OTHER_MSG.edit}</Tabs.Tab>
              <Tabs.Tab value="preview">{OTHER_MSG.preview}</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="edit" pt="sm">
              {input}
            </Tabs.Panel>
            <Tabs.Panel value="preview" pt="sm">
              <Paper withBorder p="md" radius="sm" data-testid={`preview-${field.key}`}>
                <Preview field={field} value={form.getValues().value} />
              </Paper>
            </Tabs.Panel>
          </Tabs>
        ) : (
          <Group align="flex-end" gap="sm" wrap="nowrap">
            <Box style={{ flex: 1, minWidth: 0 }}>{input}</Box>
            {field.key === "Logo" && form.getValues().value.trim() && (
              <Image src={form.getValues().value.trim()} alt="Logo 预览" w={36} h={36} fit="contain" radius="sm" />
            )}
          </Group>
        )}
        <Group mt="sm">
          <Button type="submit" loading={saving}>
            {field.save}
          </Button>
        </Group>
      </form>
    </SettingCard>
  );
}
