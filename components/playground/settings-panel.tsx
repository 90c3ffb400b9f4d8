"use client";
// The playground's side panel (spec §2 Playground, §5, §9): group, model, temperature, max tokens
// and system prompt. It holds no state: the page owns the settings, so the desktop column and the
// phone drawer show the same values.
import { NumberInput, Select, Slider, Stack, Text, Textarea } from "@mantine/core";
import { type PlaygroundSettings, pickModel, TEMPERATURE } from "@/lib/playground/chat";

type Props = {
  settings: PlaygroundSettings;
  onChange: (settings: PlaygroundSettings) => void;
  /** group → label, the groups the user may use. */
  groups: Record<string, string>;
  /** group → the models that group reaches. */
  models: Record<string, string[]>;
};

export const groupLabel = (group: string, label: string) => (label && label !== group ? `${label}（${group}）` : group);

export function SettingsPanel({ settings, onChange, groups, models }: Props) {
  const set = (patch: Partial<PlaygroundSettings>) => onChange({ ...settings, ...patch });
  const offered = models[settings.group] ?? [];
  return (
    <Stack gap="md">
      <Select
        label="分组"
        data={Object.entries(groups).map(([value, label]) => ({ value, label: groupLabel(value, label) }))}
        value={settings.group}
        onChange={(group) => group && set({ group, model: pickModel(models[group] ?? [], settings.model) })}
        allowDeselect={false}
        comboboxProps={{ withinPortal: true }}
      />
      <Select
        label="模型"
        data={offered}
        value={settings.model || null}
        onChange={(model) => model && set({ model })}
        allowDeselect={false}
        searchable
        placeholder={offered.length === 0 ? "该分组下没有可用的模型" : "请选择模型"}
        nothingFoundMessage="没有匹配的模型"
        disabled={offered.length === 0}
      />
      <div>
        <Text size="sm" fw={500} mb={6}>
          温度（temperature）：{settings.temperature.toFixed(1)}
        </Text>
        <Slider
          min={TEMPERATURE.min}
          max={TEMPERATURE.max}
          step={TEMPERATURE.step}
          precision={1}
          value={settings.temperature}
          onChange={(temperature) => set({ temperature })}
          thumbLabel="温度"
          marks={[
            { value: 0.1, label: "0.1" },
            { value: 0.5, label: "0.5" },
            { value: 1, label: "1" },
          ]}
          mb="md"
        />
      </div>
      <NumberInput
        label="最大 Tokens（max_tokens）"
        placeholder="不限制"
        min={1}
        allowDecimal={false}
        allowNegative={false}
        value={settings.maxTokens ?? ""}
        onChange={(value) => set({ maxTokens: typeof value === "number" && value >= 1 ? value : null })}
      />
      <Textarea
        label="系统提示词（System Prompt）"
        autosize
        minRows={4}
        maxRows={12}
        value={settings.systemPrompt}
        onChange={(event) => set({ systemPrompt: event.currentTarget.value })}
      />
    </Stack>
  );
}
