"use client";
// One block of the system tab: some options edited together and saved by one button, each changed
// one through PUT /api/option/ in the order the block lists them (a toggle after the values it
// needs). Secrets are write-only: the server never sends them, the field says whether one is set,
// and an empty secret field keeps the stored value.
import { Anchor, Badge, Box, Button, Group, NumberInput, PasswordInput, SimpleGrid, Switch, TagsInput, TextInput } from "@mantine/core";
import { type ReactNode, useState } from "react";
import { SettingCard } from "@/components/settings/setting-card";
import { OPTION_MSG, saveOption } from "@/lib/client/options";
import { showError, showInfo, showSuccess } from "@/lib/client/notify";
import { NOT_YET_OPEN } from "@/lib/options/unavailable";

export type OptionValues = Readonly<Record<string, string>>;

/** What the system tab knows of the stored options (secrets only as set or not). */
export type SavedOptions = { values: OptionValues; secretsSet: ReadonlySet<string> };

type Base = {
  key: string;
  label: string;
  description?: string;
  /** Takes a whole row of the grid (long lists). */
  wide?: boolean;
};
export type FieldDef =
  | (Base & { kind: "text"; placeholder?: string })
  | (Base & { kind: "secret" })
  | (Base & { kind: "number"; min?: number; max?: number; decimal?: boolean })
  | (Base & { kind: "tags"; placeholder?: string })
  /** `forcedOn`: the switch is on and locked while the form's values say so (SSL on port 465). */
  | (Base & { kind: "switch"; forcedOn?: (values: OptionValues) => string | null });

/** The placeholder of a secret field whose value is stored. */
export const SECRET_SET = "已设置";
export const SECRET_UNSET = "未设置";

type Props = {
  title: string;
  description?: ReactNode;
  fields: FieldDef[];
  saveLabel: string;
  saved: SavedOptions;
  /** A rule checked before anything is sent; its message is shown instead of saving. */
  check?: (saved: SavedOptions) => string | null;
  /** Reads the options again after a save; gives the stored values (null when the read failed). */
  reload: () => Promise<SavedOptions | null>;
  /** The feature is not built yet: this says why; the fields are shown disabled and nothing is saved. */
  unavailable?: string;
  children?: ReactNode;
};

const forcedReason = (field: FieldDef, values: OptionValues) => (field.kind === "switch" && field.forcedOn ? field.forcedOn(values) : null);

export function OptionForm({ title, description, fields, saveLabel, saved, check, reload, unavailable, children }: Props) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((f) => [f.key, f.kind === "secret" ? "" : (saved.values[f.key] ?? "")])),
  );
  const [saving, setSaving] = useState(false);
  const set = (key: string, value: string) => setValues((v) => ({ ...v, [key]: value }));

  /** The value a field saves: a forced switch saves "true". */
  const effective = (field: FieldDef) => (forcedReason(field, values) ? "true" : (values[field.key] ?? ""));

  const submit = async () => {
    const refusal = check?.(saved);
    if (refusal) return showError(refusal);
    const changes = fields.filter((f) => (f.kind === "secret" ? values[f.key]!.trim() !== "" : effective(f) !== saved.values[f.key]));
    if (changes.length === 0) return showInfo(OPTION_MSG.unchanged);
    setSaving(true);
    let failed = false;
    const done: string[] = [];
    for (const field of changes) {
      if (!(await saveOption(field.key, effective(field)))) {
        failed = true;
        break;
      }
      done.push(field.key);
    }
    const fresh = await reload();
    setSaving(false);
    // Saved fields show what the server stored (trimmed, normalised); a saved secret empties.
    setValues((v) => {
      const next = { ...v };
      for (const key of done) next[key] = fields.find((f) => f.key === key)?.kind === "secret" ? "" : (fresh?.values[key] ?? next[key]!);
      return next;
    });
    if (!failed) showSuccess(OPTION_MSG.saved);
  };

  return (
    <SettingCard
      title={title}
      description={
        unavailable ? (
          <>
            {unavailable}
            {description && <> {description}</>}
          </>
        ) : (
          description
        )
      }
      extra={
        unavailable && (
          <Badge variant="light" color="gray">
            {NOT_YET_OPEN}
          </Badge>
        )
      }
    >
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
              <Field field={field} values={values} set={set} secretSet={saved.secretsSet.has(field.key)} disabled={!!unavailable} />
            </Box>
          ))}
        </SimpleGrid>
        {!unavailable && (
          <Group>
            <Button type="submit" loading={saving}>
              {saveLabel}
            </Button>
          </Group>
        )}
      </form>
    </SettingCard>
  );
}

function Field({
  field,
  values,
  set,
  secretSet,
  disabled,
}: {
  field: FieldDef;
  values: OptionValues;
  set: (key: string, value: string) => void;
  secretSet: boolean;
  disabled: boolean;
}) {
  const value = values[field.key] ?? "";
  const common = { label: field.label, description: field.description, disabled };
  switch (field.kind) {
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
          allowDecimal={field.decimal ?? false}
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
          disabled={disabled || !!forced}
          onChange={(e) => set(field.key, String(e.currentTarget.checked))}
          mt="xs"
        />
      );
    }
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
