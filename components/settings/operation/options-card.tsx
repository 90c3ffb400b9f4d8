"use client";
// One section of the operation tab: its fields (text, number, switch, choice, JSON) as the option
// registry describes them, saved together by its button, one PUT /api/option/ per changed option.
// Values are checked first with the registry's parser (useOptionsForm), so a bad entry sends
// nothing; the server checks again.
import { Button, Group, NumberInput, Select, SimpleGrid, Stack, Switch, Textarea, TextInput } from "@mantine/core";
import type { ReactNode } from "react";
import { SettingCard } from "@/components/settings/setting-card";
import { refreshStatus } from "@/lib/client/session";
import { useOptionsForm } from "@/lib/client/options";
import { type OptionKey, type OptionSection, sectionFields } from "@/lib/options/registry";

type Props = {
  title: string;
  description?: ReactNode;
  section: OptionSection;
  initial: Partial<Record<OptionKey, string>>;
  /** Below the fields, e.g. the log cleanup. */
  children?: ReactNode;
};

export function OptionsCard({ title, description, section, initial, children }: Props) {
  const fields = sectionFields(section);
  const form = useOptionsForm({
    initial: Object.fromEntries(fields.map((f) => [f.key, initial[f.key] ?? ""])) as Record<OptionKey, string>,
    // Menu entries, links and display settings come from the status object: read it again.
    afterSave: async () => {
      await refreshStatus();
      return null;
    },
  });
  const { values, errors, set } = form;

  const inputs = fields.filter((f) => f.input === "text" || f.input === "number" || f.input === "select");
  const switches = fields.filter((f) => f.input === "switch");
  const json = fields.filter((f) => f.input === "json");

  return (
    <SettingCard title={title} description={description}>
      {inputs.length > 0 && (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md" verticalSpacing="sm">
          {inputs.map((f) => {
            const common = { label: f.label, description: f.description, placeholder: f.placeholder, error: errors[f.key] };
            if (f.input === "number") {
              return (
                <NumberInput
                  key={f.key}
                  {...common}
                  min={f.min ?? 0}
                  step={f.kind === "int" ? 1 : undefined}
                  suffix={f.suffix}
                  allowNegative={false}
                  clampBehavior="none"
                  value={values[f.key] ?? ""}
                  onChange={(v) => set(f.key, String(v))}
                />
              );
            }
            if (f.input === "select") {
              return (
                <Select
                  key={f.key}
                  {...common}
                  data={f.choices ?? []}
                  allowDeselect={false}
                  value={values[f.key] ?? null}
                  onChange={(v) => v !== null && set(f.key, v)}
                />
              );
            }
            return <TextInput key={f.key} {...common} value={values[f.key] ?? ""} onChange={(e) => set(f.key, e.currentTarget.value)} />;
          })}
        </SimpleGrid>
      )}
      {switches.length > 0 && (
        <Stack gap="xs">
          {switches.map((f) => (
            <Switch
              key={f.key}
              label={f.label}
              description={f.description}
              checked={values[f.key] === "true"}
              onChange={(e) => set(f.key, e.currentTarget.checked ? "true" : "false")}
            />
          ))}
        </Stack>
      )}
      {json.map((f) => (
        <Textarea
          key={f.key}
          label={f.label}
          description={f.description}
          error={errors[f.key]}
          value={values[f.key] ?? ""}
          onChange={(e) => set(f.key, e.currentTarget.value)}
          autosize
          minRows={6}
          maxRows={20}
          spellCheck={false}
          styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
        />
      ))}
      <Group>
        <Button onClick={form.save} loading={form.saving}>
          保存{title}
        </Button>
      </Group>
      {children}
    </SettingCard>
  );
}
