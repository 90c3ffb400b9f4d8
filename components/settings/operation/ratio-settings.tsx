"use client";
// Operation tab, ratios (spec §9): ModelPrice, ModelRatio, CompletionRatio, GroupRatio,
// UserUsableGroups and TopupGroupRatio, each a JSON object. Two views of the same text: JSON
// editors (checked before saving, the spec's message for text that does not parse) and a table
// per option whose rows write that JSON. The server validates again (PUT /api/option/). "重置模型倍率"
// puts the built-in ModelRatio back (POST /api/option/rest_model_ratio) after a confirmation.
import {
  ActionIcon,
  Alert,
  Button,
  Group,
  NumberInput,
  SegmentedControl,
  Select,
  Stack,
  Table,
  Text,
  Textarea,
  TextInput,
} from "@mantine/core";
import { useState } from "react";
import { confirmAction } from "@/components/data/confirm";
import { Icon } from "@/components/icons";
import { SettingCard } from "@/components/settings/setting-card";
import { useOptionsForm } from "@/lib/client/options";
import { api } from "@/lib/client/api";
import { showError, showSuccess } from "@/lib/client/notify";
import { INVALID_JSON_MESSAGE } from "@/lib/options/messages";
import { type OptionField, type OptionKey, sectionFields } from "@/lib/options/registry";

const RATIO_FIELDS = sectionFields("ratio");
/** The ratio section's options, in the registry's order. */
export const RATIO_KEYS = RATIO_FIELDS.map((f) => f.key);
export type RatioKey = OptionKey;
export type RatioValues = Partial<Record<RatioKey, string>>;

/** The table view's column names (the label and description are the registry's). */
const COLUMNS: Partial<Record<RatioKey, { nameLabel: string; valueLabel: string; text?: boolean }>> = {
  ModelPrice: { nameLabel: "模型", valueLabel: "价格（美元/次）" },
  ModelRatio: { nameLabel: "模型", valueLabel: "倍率" },
  CompletionRatio: { nameLabel: "模型", valueLabel: "补全倍率" },
  GroupRatio: { nameLabel: "分组", valueLabel: "倍率" },
  UserUsableGroups: { nameLabel: "分组", valueLabel: "描述", text: true },
  TopupGroupRatio: { nameLabel: "分组", valueLabel: "倍率" },
};

type Field = OptionField & { nameLabel: string; valueLabel: string; text?: boolean };

const FIELDS = Object.fromEntries(
  RATIO_FIELDS.map((f) => [f.key, { ...f, nameLabel: "名称", valueLabel: "值", ...COLUMNS[f.key] }]),
) as Record<RatioKey, Field>;

/** The JSON text as the editors show it: indented when it parses, as stored otherwise. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function parsesAsObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function RatioSettings({ values: initial }: { values: RatioValues }) {
  const [view, setView] = useState<"json" | "table">("json");
  const [tableKey, setTableKey] = useState<RatioKey>("ModelRatio");
  const [resetting, setResetting] = useState(false);
  const form = useOptionsForm({
    initial: prettyAll(initial),
    success: "倍率设置已保存",
    // A value the parser refuses: its editor shows why, and the message names the setting.
    onInvalid: (errors) => {
      const first = RATIO_KEYS.find((key) => errors[key]);
      if (!first) return;
      setView("json");
      const message = errors[first]!;
      showError(message === INVALID_JSON_MESSAGE ? `${FIELDS[first].label}${message}` : message);
    },
  });
  const { values, errors, set, setValues, setSaved, setErrors } = form;

  const reset = async () => {
    const sure = await confirmAction({
      title: "重置模型倍率",
      message: "模型倍率将恢复为内置的默认值，当前的模型倍率设置会被覆盖。确定要重置吗？",
      confirmLabel: "重置",
      danger: true,
    });
    if (!sure) return;
    setResetting(true);
    const res = await api("POST", "/api/option/rest_model_ratio");
    const list = res.success ? await api<Array<{ key: string; value: string }>>("GET", "/api/option/") : null;
    setResetting(false);
    if (!res.success || !list?.success) return;
    const text = prettyJson(list.data.find((o) => o.key === "ModelRatio")?.value ?? "{}");
    setValues((v) => ({ ...v, ModelRatio: text }));
    setSaved((v) => ({ ...v, ModelRatio: text }));
    setErrors((e) => ({ ...e, ModelRatio: null }));
    showSuccess(res.message || "重置模型倍率成功");
  };

  return (
    <SettingCard
      title="倍率设置"
      description="计费：按量模型消耗 = (提示 tokens + 补全 tokens × 补全倍率) × 模型倍率 × 分组倍率；按次模型消耗 = 模型固定价格 × 分组倍率。"
    >
      <Stack gap="md">
        <SegmentedControl
          aria-label="编辑方式"
          value={view}
          onChange={(v) => setView(v as "json" | "table")}
          data={[
            { value: "json", label: "JSON 编辑" },
            { value: "table", label: "表格编辑" },
          ]}
          style={{ alignSelf: "flex-start" }}
        />
        {view === "json" ? (
          RATIO_KEYS.map((key) => (
            <Textarea
              key={key}
              label={FIELDS[key].label}
              description={FIELDS[key].description}
              autosize
              minRows={4}
              maxRows={12}
              value={values[key]}
              error={errors[key]}
              onChange={(e) => set(key, e.currentTarget.value)}
              styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)", fontSize: "var(--mantine-font-size-xs)" } }}
            />
          ))
        ) : (
          <Stack gap="sm">
            <Select
              label="要编辑的设置"
              data={RATIO_KEYS.map((key) => ({ value: key, label: FIELDS[key].label }))}
              value={tableKey}
              onChange={(v) => v && setTableKey(v as RatioKey)}
              allowDeselect={false}
              maw={320}
            />
            <Text size="sm" c="dimmed">
              {FIELDS[tableKey].description}
            </Text>
            <RatioTable key={tableKey} field={FIELDS[tableKey]} text={values[tableKey]} onChange={(text) => set(tableKey, text)} />
          </Stack>
        )}
        <Group>
          <Button onClick={form.save} loading={form.saving}>
            保存倍率设置
          </Button>
          <Button variant="default" color="red" onClick={reset} loading={resetting}>
            重置模型倍率
          </Button>
        </Group>
      </Stack>
    </SettingCard>
  );
}

function prettyAll(values: RatioValues): Record<RatioKey, string> {
  return Object.fromEntries(RATIO_KEYS.map((key) => [key, prettyJson(values[key] ?? "")])) as Record<RatioKey, string>;
}

type Row = { id: number; name: string; value: string };

/** Rows shown at once; a search narrows the rest. */
const SHOWN_ROWS = 50;

/**
 * One option as a table: its rows are the JSON's entries, and every edit writes the JSON again
 * (rows without a name are left out; a number column's empty value counts as 0).
 */
function RatioTable({ field, text, onChange }: { field: Field; text: string; onChange: (text: string) => void }) {
  const parsed = parsesAsObject(text);
  const [rows, setRows] = useState<Row[]>(() =>
    Object.entries(parsed ?? {}).map(([name, value], id) => ({ id, name, value: String(value) })),
  );
  const [nextId, setNextId] = useState(rows.length);
  const [search, setSearch] = useState("");
  if (parsed === null) {
    return (
      <Alert color="red" variant="light">
        {`${field.label}${INVALID_JSON_MESSAGE}，请先在 JSON 编辑中修正。`}
      </Alert>
    );
  }

  const write = (next: Row[]) => {
    setRows(next);
    const table: Record<string, string | number> = {};
    for (const row of next) {
      const name = row.name.trim();
      if (name === "") continue;
      table[name] = field.text ? row.value : row.value.trim() === "" ? 0 : Number(row.value);
    }
    onChange(JSON.stringify(table, null, 2));
  };
  const update = (id: number, patch: Partial<Row>) => write(rows.map((r) => (r.id === id ? { ...r, ...patch } : r)));
  const add = () => {
    setSearch("");
    setNextId(nextId + 1);
    write([{ id: nextId, name: "", value: field.text ? "" : "1" }, ...rows]);
  };

  const needle = search.trim().toLowerCase();
  const matching = needle ? rows.filter((r) => r.name.toLowerCase().includes(needle)) : rows;
  const shown = matching.slice(0, SHOWN_ROWS);

  return (
    <Stack gap="xs">
      <Group gap="xs" wrap="wrap">
        <TextInput
          placeholder={`搜索${field.nameLabel}`}
          aria-label={`搜索${field.nameLabel}`}
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          leftSection={<Icon name="search" size={16} />}
          w={240}
        />
        <Button variant="light" leftSection={<Icon name="plus" size={16} />} onClick={add}>
          添加一行
        </Button>
        <Text size="sm" c="dimmed">
          共 {rows.length} 条{matching.length > shown.length ? `，显示前 ${shown.length} 条，可搜索查看其余` : ""}
        </Text>
      </Group>
      <Table.ScrollContainer minWidth={420}>
        <Table striped highlightOnHover verticalSpacing={4}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{field.nameLabel}</Table.Th>
              <Table.Th>{field.valueLabel}</Table.Th>
              <Table.Th w={60}>操作</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.length === 0 && (
              <Table.Tr>
                <Table.Td colSpan={3}>
                  <Text size="sm" c="dimmed" ta="center">
                    暂无数据
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
            {shown.map((row) => (
              <Table.Tr key={row.id}>
                <Table.Td>
                  <TextInput
                    size="xs"
                    aria-label={field.nameLabel}
                    value={row.name}
                    error={row.name.trim() === ""}
                    onChange={(e) => update(row.id, { name: e.currentTarget.value })}
                  />
                </Table.Td>
                <Table.Td>
                  {field.text ? (
                    <TextInput
                      size="xs"
                      aria-label={field.valueLabel}
                      value={row.value}
                      onChange={(e) => update(row.id, { value: e.currentTarget.value })}
                    />
                  ) : (
                    <NumberInput
                      size="xs"
                      aria-label={field.valueLabel}
                      min={0}
                      hideControls
                      value={row.value}
                      onChange={(v) => update(row.id, { value: String(v) })}
                    />
                  )}
                </Table.Td>
                <Table.Td>
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    aria-label={`删除 ${row.name}`}
                    onClick={() => write(rows.filter((r) => r.id !== row.id))}
                  >
                    <Icon name="trash" size={16} />
                  </ActionIcon>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
