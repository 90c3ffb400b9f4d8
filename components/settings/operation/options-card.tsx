"use client";
// One section of the operation tab: its fields (text, number, switch, choice, JSON), saved
// together by its button, one PUT /api/option/ per changed option. Values are checked here first
// (lib/options/operation.ts), so a bad entry sends nothing; the server checks again.
import { Button, Group, NumberInput, Select, SimpleGrid, Stack, Switch, Textarea, TextInput } from "@mantine/core";
import { type ReactNode, useState } from "react";
import { SettingCard } from "@/components/settings/setting-card";
import { showSuccess, showWarning } from "@/lib/client/notify";
import { refreshStatus } from "@/lib/client/session";
import { changedOptions, OPTION_MSG, saveOptions } from "@/lib/client/options";
import { checkOperationValue, type OperationKey } from "@/lib/options/operation";
import { NOT_YET_OPEN } from "@/lib/options/unavailable";

export type OptionField = {
  key: OperationKey;
  label: string;
  description?: string;
  placeholder?: string;
  /** Its feature is not built yet: shown disabled and off, with NOT_YET_OPEN, and never saved. */
  unavailable?: boolean;
} & (
  | { kind: "text" | "switch" | "json" }
  | { kind: "number"; min?: number; step?: number; suffix?: string }
  | { kind: "select"; data: { value: string; label: string }[] }
);

type Props = {
  title: string;
  description?: ReactNode;
  fields: OptionField[];
  initial: Record<OperationKey, string>;
  /** Below the fields, e.g. the log cleanup. */
  children?: ReactNode;
};

export function OptionsCard({ title, description, fields, initial, children }: Props) {
  const keys = fields.map((f) => f.key);
  const [saved, setSaved] = useState<Record<string, string>>(() => Object.fromEntries(keys.map((k) => [k, initial[k] ?? ""])));
  const [values, setValues] = useState(saved);
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [saving, setSaving] = useState(false);

  const set = (key: OperationKey, value: string) => {
    setValues((v) => ({ ...v, [key]: value }));
    setErrors((e) => ({ ...e, [key]: null }));
  };

  const save = async () => {
    const changed = changedOptions(values, saved) as Partial<Record<OperationKey, string>>;
    const changedKeys = Object.keys(changed) as OperationKey[];
    if (changedKeys.length === 0) return showWarning(OPTION_MSG.unchanged);
    const found = Object.fromEntries(changedKeys.map((k) => [k, checkOperationValue(k, values[k] ?? "")]));
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    if (changed.Chats !== undefined) changed.Chats = changed.Chats.trim();
    setSaving(true);
    const { ok, saved: done } = await saveOptions(changed as Record<string, string>);
    setSaved((s) => ({ ...s, ...Object.fromEntries(done.map((k) => [k, values[k] ?? ""])) }));
    setSaving(false);
    if (!ok) return;
    showSuccess(OPTION_MSG.saved);
    // Menu entries, links and display settings come from the status object: read it again.
    await refreshStatus();
  };

  const inputs = fields.filter((f) => f.kind === "text" || f.kind === "number" || f.kind === "select");
  const switches = fields.filter((f) => f.kind === "switch");
  const json = fields.filter((f) => f.kind === "json");

  return (
    <SettingCard title={title} description={description}>
      {inputs.length > 0 && (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md" verticalSpacing="sm">
          {inputs.map((f) => {
            const common = { label: f.label, description: f.description, placeholder: f.placeholder, error: errors[f.key] };
            if (f.kind === "number") {
              return (
                <NumberInput
                  key={f.key}
                  {...common}
                  min={f.min}
                  step={f.step}
                  suffix={f.suffix}
                  allowNegative={false}
                  clampBehavior="none"
                  value={values[f.key] ?? ""}
                  onChange={(v) => set(f.key, String(v))}
                />
              );
            }
            if (f.kind === "select") {
              return (
                <Select
                  key={f.key}
                  {...common}
                  data={f.data}
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
              description={f.unavailable ? NOT_YET_OPEN : f.description}
              checked={!f.unavailable && values[f.key] === "true"}
              disabled={f.unavailable}
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
        <Button onClick={save} loading={saving}>
          保存{title}
        </Button>
      </Group>
      {children}
    </SettingCard>
  );
}
