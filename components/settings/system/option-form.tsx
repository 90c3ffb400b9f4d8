"use client";
// One block of the system tab: the options of one registry section (lib/options/registry.ts),
// edited together and saved by one button, each changed one through PUT /api/option/ in the
// registry's order (a toggle after the values it needs). Secrets are write-only: the server never
// sends them, the field says whether one is set, and an empty secret field keeps the stored value.
import { Anchor, Box, Button, Group, NumberInput, PasswordInput, SimpleGrid, Switch, TagsInput, TextInput } from "@mantine/core";
import { type ReactNode, useState } from "react";
import { SettingCard } from "@/components/settings/setting-card";
import { useOptionsForm } from "@/lib/client/options";
import { type OptionField, type OptionKey, type OptionSection, sectionFields } from "@/lib/options/registry";

export type OptionValues = Readonly<Record<string, string>>;

/** What the system tab knows of the stored options (secrets only as set or not). */
export type SavedOptions = { values: OptionValues; secretsSet: ReadonlySet<string> };

/** The placeholder of a secret field whose value is stored. */
export const SECRET_SET = "已设置";
export const SECRET_UNSET = "未设置";

type Props = {
  title: string;
  description?: ReactNode;
  section: OptionSection;
  saveLabel: string;
  saved: SavedOptions;
  /** A rule checked before anything is sent; its message is shown instead of saving. */
  check?: (saved: SavedOptions) => string | null;
  /** Reads the options again after a save; gives the stored values (null when the read failed). */
  reload: () => Promise<SavedOptions | null>;
  /**
   * Runs before saving, with the values being edited: gives fields to set first (null stops the
   * save; it has said why).
   */
  prepare?: (values: OptionValues, saved: OptionValues) => Promise<Record<string, string> | null>;
  children?: ReactNode;
};

const forcedReason = (field: OptionField, values: OptionValues) =>
  field.input === "switch" && field.forcedOn ? field.forcedOn(values) : null;

export function OptionForm({ title, description, section, saveLabel, saved, check, reload, prepare, children }: Props) {
  const fields = sectionFields(section);
  const byKey = new Map(fields.map((f) => [f.key, f]));
  const form = useOptionsForm({
    initial: Object.fromEntries(fields.map((f) => [f.key, saved.values[f.key] ?? ""])) as Record<OptionKey, string>,
    writeOnly: new Set(fields.filter((f) => f.input === "secret").map((f) => f.key)),
    // A forced switch saves "true".
    sent: (key, values) => (forcedReason(byKey.get(key)!, values) ? "true" : values[key]),
    refuse: () => check?.(saved) ?? null,
    // Saved fields show what the server stored (trimmed, normalised).
    afterSave: async () => (await reload())?.values ?? null,
  });
  const { values, errors, set } = form;
  const [preparing, setPreparing] = useState(false);
  const submit = async () => {
    if (!prepare) return form.save();
    setPreparing(true);
    const patch = await prepare(values, saved.values);
    setPreparing(false);
    if (patch) await form.saveWith(patch as Partial<Record<OptionKey, string>>);
  };

  return (
    <SettingCard title={title} description={description}>
      {children}
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm" verticalSpacing="sm" mb="md">
          {fields.map((field) => (
            <Box key={field.key} style={field.wide ? { gridColumn: "1 / -1" } : undefined}>
              <Field
                field={field}
                values={values}
                set={set}
                error={errors[field.key] ?? null}
                secretSet={saved.secretsSet.has(field.key)}
              />
            </Box>
          ))}
        </SimpleGrid>
        <Group>
          <Button type="submit" loading={form.saving || preparing}>
            {saveLabel}
          </Button>
        </Group>
      </form>
    </SettingCard>
  );
}

function Field({
  field,
  values,
  set,
  error,
  secretSet,
}: {
  field: OptionField;
  values: OptionValues;
  set: (key: OptionKey, value: string) => void;
  error: string | null;
  secretSet: boolean;
}) {
  const value = values[field.key] ?? "";
  const common = { label: field.label, description: field.description, error };
  switch (field.input) {
    case "text":
      return (
        <TextInput {...common} placeholder={field.placeholder} value={value} onChange={(e) => set(field.key, e.currentTarget.value)} />
      );
    case "secret":
      return (
        <PasswordInput
          {...common}
          description={field.description ?? (secretSet ? "留空则保持不变" : undefined)}
          placeholder={secretSet ? SECRET_SET : SECRET_UNSET}
          autoComplete="new-password"
          value={value}
          onChange={(e) => set(field.key, e.currentTarget.value)}
        />
      );
    case "number":
      return (
        <NumberInput
          {...common}
          min={field.min}
          max={field.max}
          allowDecimal={field.kind === "float"}
          value={value}
          onChange={(v) => set(field.key, String(v))}
        />
      );
    case "tags": {
      const tags = value ? value.split(",") : [];
      return (
        <TagsInput
          {...common}
          placeholder={field.placeholder}
          value={tags}
          splitChars={[",", " ", "，"]}
          clearable
          onChange={(next) => set(field.key, next.join(","))}
        />
      );
    }
    case "switch": {
      const forced = forcedReason(field, values);
      return (
        <Switch
          label={field.label}
          description={forced ?? field.description}
          checked={forced ? true : value === "true"}
          disabled={!!forced}
          onChange={(e) => set(field.key, String(e.currentTarget.checked))}
          mt="xs"
        />
      );
    }
    default:
      return null;
  }
}

/** A link out to a vendor's console, opened in a new tab. */
export function ExternalLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Anchor href={href} target="_blank" rel="noreferrer" size="sm">
      {children}
    </Anchor>
  );
}
