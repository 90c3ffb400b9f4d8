"use client";
// The channel editor page (spec §4 Channel form behaviour, §5 Channel): one form for create (one
// channel, or one per key line in batch mode) and edit (only changed fields are sent; a blank key
// keeps the stored one). The rules live in lib/channels/form.ts and the server's schemas.
import {
  Alert,
  Button,
  Group,
  MultiSelect,
  NumberInput,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
  Title,
} from "@mantine/core";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo, useRef, useState } from "react";
import { ChannelKeyReveal } from "@/components/channels/channel-key-reveal";
import { ChannelKeysPanel } from "@/components/channels/channel-keys-panel";
import { useInvalidReveal } from "@/components/data/use-invalid-reveal";
import { api } from "@/lib/client/api";
import { showError, showSuccess } from "@/lib/client/notify";
import { channelTypeInfo } from "@/lib/channels/catalog";
import {
  addCustomModels,
  CHANNEL_FORM_MSG,
  CHANNEL_TYPE_OPTIONS,
  type ChannelFormValues,
  channelCreateBody,
  channelFormOf,
  channelTypeFields,
  channelUpdateBody,
  emptyChannelForm,
  mergeModels,
  withType,
} from "@/lib/channels/form";
import type { ChannelView } from "@/lib/channels/view";
import { isModelPriced, type PriceTable } from "@/lib/billing/ratios";

const MAPPING_EXAMPLE = '{\n  "gpt-3.5-turbo-0301": "gpt-3.5-turbo"\n}';
const STATUS_CODE_EXAMPLE = '{\n  "400": "500"\n}';
const OUTPUT_LIMITS_EXAMPLE = '{\n  "gpt-4o": 16384,\n  "*": 8192\n}';

const MULTI_KEY_OPTIONS = [
  { value: "", label: "关闭" },
  { value: "random", label: "随机" },
  { value: "polling", label: "轮询" },
];

type Props = {
  channel: ChannelView | null;
  models: string[];
  groups: string[];
  modelListTypes: number[];
  /** type → why the relay does not serve it yet (lib/relay/providers): shown, not selectable. */
  notRelayed: Record<number, string>;
  root: boolean;
  /** Which models have a price (the options' ModelRatio, ModelPrice and self-use mode). */
  priceTable: PriceTable;
};

export function ChannelEditor({ channel, models: knownModels, groups, modelListTypes, notRelayed, root, priceTable }: Props) {
  const router = useRouter();
  const original = useMemo(() => (channel ? channelFormOf(channel) : null), [channel]);
  const [values, setValues] = useState<ChannelFormValues>(() => original ?? emptyChannelForm());
  const [custom, setCustom] = useState("");
  const [saving, setSaving] = useState(false);
  const [fetching, setFetching] = useState(false);
  const submitting = useRef(false);
  const fields = channelTypeFields(values.type);
  // The field a refused submit is about: marked, and revealed like every form's first error.
  const [problem, setProblem] = useState<{ field: keyof ChannelFormValues; message: string } | null>(null);
  const { ref: formRef, reveal } = useInvalidReveal<HTMLFormElement>();
  const errorOf = (name: keyof ChannelFormValues) => (problem?.field === name ? problem.message : undefined);
  const set = <K extends keyof ChannelFormValues>(name: K, value: ChannelFormValues[K]) => {
    setValues((v) => ({ ...v, [name]: value }));
    setProblem((p) => (p?.field === name ? null : p));
  };

  // A stored channel keeps its own type selectable, so the form shows it.
  const typeOptions = useMemo(
    () =>
      CHANNEL_TYPE_OPTIONS.map((o) =>
        notRelayed[Number(o.value)] && Number(o.value) !== channel?.type ? { ...o, label: `${o.label}（暂不可用）`, disabled: true } : o,
      ),
    [notRelayed, channel?.type],
  );
  const typeRefusal = notRelayed[values.type];

  const modelOptions = useMemo(() => [...new Set([...values.models, ...knownModels])], [values.models, knownModels]);
  // The relay refuses these (倍率或价格未配置) whatever channel serves them: said here, not blocking,
  // because the admin may well set their prices right after.
  const unpriced = useMemo(() => values.models.filter((m) => !isModelPriced(m, priceTable)), [values.models, priceTable]);
  const groupOptions = useMemo(() => [...new Set([...groups, ...values.group])], [groups, values.group]);

  const addCustom = () => {
    if (!custom.trim()) return;
    const { models, duplicate } = addCustomModels(values.models, custom);
    set("models", models);
    setCustom("");
    if (duplicate) showError(CHANNEL_FORM_MSG.duplicateModels);
  };

  const fetchModels = async () => {
    setFetching(true);
    try {
      const res =
        channel && !values.key.trim()
          ? await api<string[]>("GET", `/api/channel/fetch_models/${channel.id}`)
          : await api<string[]>("POST", "/api/channel/fetch_models", { type: values.type, base_url: values.base_url, key: values.key });
      if (!res.success) return;
      set("models", mergeModels(values.models, res.data));
      showSuccess(CHANNEL_FORM_MSG.modelsFetched(res.data.length));
    } finally {
      setFetching(false);
    }
  };

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (submitting.current) {
      // Its own toast: the answer to the first submit, still coming, must not replace it.
      showError(CHANNEL_FORM_MSG.doubleSubmit, "channel-double-submit");
      return;
    }
    const built = channel && original ? channelUpdateBody(channel.id, values, original) : channelCreateBody(values);
    if (!built.ok) {
      if (built.field) {
        setProblem({ field: built.field, message: built.message });
        reveal();
      } else showError(built.message);
      return;
    }
    submitting.current = true;
    setSaving(true);
    try {
      const res = await api<ChannelView | ChannelView[]>(channel ? "PUT" : "POST", "/api/channel/", built.body);
      if (!res.success) return;
      showSuccess(channel ? CHANNEL_FORM_MSG.updated : CHANNEL_FORM_MSG.created(Array.isArray(res.data) ? res.data.length : 1));
      router.push("/channel");
      router.refresh();
    } finally {
      submitting.current = false;
      setSaving(false);
    }
  };

  const canFetch = modelListTypes.includes(values.type);
  const multiKey = values.multi_key_mode !== "";
  const keyPlaceholder = multiKey
    ? channel
      ? "留空表示不修改密钥；填写则替换全部密钥，一行一个"
      : fields.keyIsJson
        ? "多个 JSON 凭证：一个 JSON 数组，或一行一个 JSON 对象"
        : "请输入密钥，一行一个"
    : channel
      ? "留空表示不修改密钥"
      : values.batch
        ? "请输入密钥，一行一个，每个密钥创建一个渠道"
        : fields.keyPlaceholder;
  const keyDescription = channel
    ? [`密钥只写不读${root ? "" : "；修改类型或 Base URL 时需重新填写密钥"}`, fields.keyHint].filter(Boolean).join("；")
    : (fields.keyHint ?? undefined);

  return (
    <Stack gap="md" maw={900}>
      <Title order={3}>{channel ? `编辑渠道「${channel.name}」` : "创建新的渠道"}</Title>
      <Paper withBorder p={{ base: "sm", sm: "lg" }} radius="md">
        <form ref={formRef} onSubmit={submit} noValidate>
          <Stack gap="md">
            <Select
              label="类型"
              data={typeOptions}
              renderOption={({ option }) => {
                const reason = notRelayed[Number(option.value)];
                return reason ? (
                  <Stack gap={0}>
                    <Text size="sm">{option.label}</Text>
                    <Text size="xs" c="dimmed">
                      {reason}
                    </Text>
                  </Stack>
                ) : (
                  option.label
                );
              }}
              error={typeRefusal ? `该类型暂不可用：${typeRefusal}` : errorOf("type")}
              value={String(values.type)}
              onChange={(v) => v && setValues((cur) => withType(cur, Number(v)))}
              searchable
              allowDeselect={false}
              comboboxProps={{ withinPortal: true }}
            />
            <TextInput
              label="名称"
              required
              placeholder="请为渠道命名"
              error={errorOf("name")}
              value={values.name}
              onChange={(e) => set("name", e.currentTarget.value)}
            />
            <TextInput
              label={fields.baseUrlLabel}
              required={fields.baseUrlRequired}
              placeholder={fields.baseUrlPlaceholder}
              description="末尾的斜杠会被去掉"
              error={errorOf("base_url")}
              value={values.base_url}
              onChange={(e) => set("base_url", e.currentTarget.value)}
            />
            {fields.other && (
              <TextInput
                label={fields.other.label}
                placeholder={fields.other.placeholder}
                description={fields.other.default ? `留空使用默认值 ${fields.other.default}` : undefined}
                error={errorOf("other")}
                value={values.other}
                onChange={(e) => set("other", e.currentTarget.value)}
              />
            )}
            {values.type === 1 && (
              <TextInput
                label="组织"
                placeholder="OpenAI 组织 ID（可选）"
                error={errorOf("openai_organization")}
                value={values.openai_organization}
                onChange={(e) => set("openai_organization", e.currentTarget.value)}
              />
            )}
            <Stack gap={6}>
              <Stack gap={4}>
                <Text size="sm" fw={500} id="multi-key-mode-label">
                  多密钥模式
                </Text>
                <SegmentedControl
                  aria-labelledby="multi-key-mode-label"
                  data={MULTI_KEY_OPTIONS}
                  value={values.multi_key_mode}
                  onChange={(v) => setValues((cur) => ({ ...cur, multi_key_mode: v, batch: v ? false : cur.batch }))}
                  w="fit-content"
                  size="xs"
                />
                <Text size="xs" c="dimmed">
                  开启后一个渠道可放多个密钥（一行一个），按随机或轮询使用；某个密钥失效时只禁用该密钥
                </Text>
              </Stack>
              <Textarea
                label="密钥"
                required={!channel}
                placeholder={keyPlaceholder}
                description={keyDescription}
                autosize
                minRows={fields.keyIsJson ? 8 : values.batch || multiKey ? 4 : 2}
                maxRows={fields.keyIsJson ? 20 : 12}
                error={errorOf("key")}
                value={values.key}
                onChange={(e) => set("key", e.currentTarget.value)}
                autoComplete="off"
                spellCheck={false}
                styles={fields.keyIsJson ? { input: { fontFamily: "var(--mantine-font-family-monospace)" } } : undefined}
              />
              {channel && root && <ChannelKeyReveal channelId={channel.id} />}
              {!channel && !multiKey && (
                <Switch
                  label="批量创建（一行一个密钥）"
                  checked={values.batch}
                  disabled={fields.batchRefusal !== null}
                  description={fields.batchRefusal ?? undefined}
                  error={errorOf("batch")}
                  onChange={(e) => set("batch", e.currentTarget.checked)}
                />
              )}
            </Stack>
            {channel && original?.multi_key_mode && <ChannelKeysPanel channelId={channel.id} />}
            <Stack gap={6}>
              <MultiSelect
                label="模型"
                required
                placeholder={values.models.length ? undefined : "请选择该渠道所支持的模型"}
                data={modelOptions}
                error={errorOf("models")}
                value={values.models}
                onChange={(v) => set("models", v)}
                searchable
                clearable
                maxDropdownHeight={280}
                styles={{ pillsList: { maxHeight: 240, overflowY: "auto" } }}
                comboboxProps={{ withinPortal: true }}
              />
              <Group gap="xs" wrap="wrap">
                <Button size="xs" variant="light" onClick={() => set("models", [...(channelTypeInfo(values.type)?.models ?? [])])}>
                  填入默认模型
                </Button>
                {canFetch && (
                  <Button size="xs" variant="light" loading={fetching} onClick={fetchModels}>
                    获取模型列表
                  </Button>
                )}
                <Button size="xs" variant="light" color="red" onClick={() => set("models", [])}>
                  清除所有模型
                </Button>
              </Group>
              {!canFetch && (
                <Text size="xs" c="dimmed">
                  仅 OpenAI 接口格式的渠道支持从上游获取模型列表
                </Text>
              )}
              {unpriced.length > 0 && (
                <Alert color="yellow" variant="light" title="以下模型未设置价格" data-testid="unpriced-models">
                  {unpriced.join("、")}：未配置模型倍率或模型价格，用户调用时会被拒绝（倍率或价格未配置）。请在「设置 → 运营设置 →
                  倍率设置」中为它们设置倍率或价格，或开启自用模式。
                </Alert>
              )}
              <Group gap="xs" align="flex-end" wrap="nowrap">
                <TextInput
                  aria-label="自定义模型名称"
                  placeholder="输入自定义模型名称，多个用逗号分隔"
                  value={custom}
                  onChange={(e) => setCustom(e.currentTarget.value)}
                  onKeyDown={(e) => {
                    if (e.key === "Enter") {
                      e.preventDefault();
                      addCustom();
                    }
                  }}
                  style={{ flex: 1 }}
                />
                <Button variant="default" onClick={addCustom}>
                  填入
                </Button>
              </Group>
            </Stack>
            <MultiSelect
              label="分组"
              placeholder={values.group.length ? undefined : "请选择可以使用该渠道的分组（留空为 default）"}
              data={groupOptions}
              error={errorOf("group")}
              value={values.group}
              onChange={(v) => set("group", v)}
              searchable
              comboboxProps={{ withinPortal: true }}
            />
            <Textarea
              label="模型重定向"
              description="JSON 对象：请求中的模型名 → 发往上游的模型名；留空为不重定向"
              placeholder={MAPPING_EXAMPLE}
              autosize
              minRows={3}
              error={errorOf("model_mapping")}
              value={values.model_mapping}
              onChange={(e) => set("model_mapping", e.currentTarget.value)}
              styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
            />
            <Textarea
              label="状态码复写"
              description="JSON 对象：上游状态码 → 返回给用户的状态码；留空为不复写"
              placeholder={STATUS_CODE_EXAMPLE}
              autosize
              minRows={2}
              error={errorOf("status_code_mapping")}
              value={values.status_code_mapping}
              onChange={(e) => set("status_code_mapping", e.currentTarget.value)}
              styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
            />
            <Textarea
              label="输出上限"
              description="JSON 对象：上游模型名 → 最大输出 token 数（* 为其余模型）；请求的 max_tokens 超出时按此截断，留空使用内置的模型上限"
              placeholder={OUTPUT_LIMITS_EXAMPLE}
              autosize
              minRows={2}
              error={errorOf("output_limits")}
              value={values.output_limits}
              onChange={(e) => set("output_limits", e.currentTarget.value)}
              styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
            />
            <TextInput
              label="默认测试模型"
              placeholder="留空使用模型列表中的第一个"
              error={errorOf("test_model")}
              value={values.test_model}
              onChange={(e) => set("test_model", e.currentTarget.value)}
            />
            <SimpleGrid cols={{ base: 1, xs: 2 }}>
              <NumberInput
                label="优先级"
                error={errorOf("priority")}
                value={values.priority}
                onChange={(v) => set("priority", v)}
                allowDecimal={false}
              />
              <NumberInput
                label="权重"
                error={errorOf("weight")}
                value={values.weight}
                onChange={(v) => set("weight", v)}
                allowDecimal={false}
              />
            </SimpleGrid>
            <Switch
              label="自动禁用"
              description="测试或请求失败时允许自动禁用该渠道"
              checked={values.auto_ban}
              onChange={(e) => set("auto_ban", e.currentTarget.checked)}
            />
            <Group justify="flex-end" gap="xs">
              <Button component={Link} href="/channel" variant="default">
                取消
              </Button>
              <Button type="submit" loading={saving}>
                提交
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
    </Stack>
  );
}
