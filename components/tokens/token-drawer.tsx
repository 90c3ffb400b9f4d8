"use client";
// Create and edit drawer of the token page (spec §5 Token form).
import {
  Accordion,
  Alert,
  Button,
  Checkbox,
  Group,
  MultiSelect,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { useEffect, useState } from "react";
import { useQuotaDisplay } from "@/components/data/display";
import { DrawerForm } from "@/components/data/drawer-form";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import { BUDGET_PERIOD_LABELS, BUDGET_PERIODS } from "@/lib/limits/types";
import {
  BATCH_PRESETS,
  buildTokenBody,
  EXPIRY_PRESETS,
  LIMIT_FORM_FIELDS,
  QUOTA_PRESETS_DOLLARS,
  TOKEN_FORM_MSG,
  type TokenFormValues,
} from "@/lib/tokens/form";
import type { TokenView } from "@/lib/tokens/view";
import { dollarsToQuota, formatQuota } from "@/lib/ui/format";

type Props = {
  /** null: closed; {}: create; {id}: edit that token. */
  editing: { id?: number } | null;
  onClose: () => void;
  onSaved: () => void;
  groups: Record<string, string>;
  groupsOffered: boolean;
  models: string[];
};

const CREATE_DEFAULTS: TokenFormValues = {
  name: "",
  expiry: "",
  remain_quota: 500000,
  unlimited_quota: false,
  model_limits_enabled: false,
  model_limits: [],
  allow_ips: "",
  group: "",
  count: 1,
  rpm_limit: 0,
  tpm_limit: 0,
  concurrency_limit: 0,
  budget_quota: 0,
  budget_period: "",
};

/** The period "" (不重置) travels as "none" in the Select, whose empty value means nothing chosen. */
const NO_PERIOD = "none";
const PERIOD_OPTIONS = [
  { value: NO_PERIOD, label: "不重置" },
  ...BUDGET_PERIODS.map((p) => ({ value: p, label: BUDGET_PERIOD_LABELS[p] })),
];

/** Whether any of the key's own limits is set (the 限制 section then opens with the drawer). */
const hasLimits = (v: TokenFormValues) => LIMIT_FORM_FIELDS.some((f) => f !== "budget_period" && Number(v[f]) > 0);

const pad = (n: number) => String(n).padStart(2, "0");

/** Local date-time text of the expiry input. */
function localText(seconds: number): string {
  if (seconds === -1) return "";
  const d = new Date(seconds * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function TokenDrawer({ editing, onClose, onSaved, groups, groupsOffered, models }: Props) {
  const display = useQuotaDisplay();
  const isEdit = editing?.id !== undefined;
  const [loading, setLoading] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [limitsOpen, setLimitsOpen] = useState(false);
  const form = useForm<TokenFormValues>({
    initialValues: CREATE_DEFAULTS,
    validate: { name: (v) => (!isEdit && !v.trim() ? "请输入名称" : null) },
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: load once per opening
  useEffect(() => {
    if (!editing) return;
    if (editing.id === undefined) {
      form.setValues(CREATE_DEFAULTS);
      form.resetDirty(CREATE_DEFAULTS);
      setLimitsOpen(false);
      return;
    }
    setLoading(true);
    void api<TokenView>("GET", `/api/token/${editing.id}`).then((res) => {
      setLoading(false);
      if (!res.success) {
        onClose();
        return;
      }
      const t = res.data;
      const values: TokenFormValues = {
        name: t.name,
        expiry: localText(t.expired_time),
        remain_quota: t.remain_quota,
        unlimited_quota: t.unlimited_quota,
        model_limits_enabled: t.model_limits_enabled,
        model_limits: t.model_limits ? t.model_limits.split(",").filter(Boolean) : [],
        allow_ips: t.allow_ips ?? "",
        group: t.group ?? "",
        count: 1,
        rpm_limit: t.rpm_limit,
        tpm_limit: t.tpm_limit,
        concurrency_limit: t.concurrency_limit,
        budget_quota: t.budget_quota,
        budget_period: t.budget_period,
      };
      form.setValues(values);
      form.resetDirty(values);
      setLimitsOpen(hasLimits(values));
    });
  }, [editing]);

  const submit = async () => {
    const built = buildTokenBody(form.getValues(), isEdit ? "edit" : "create");
    if (!built.ok) {
      form.setFieldError(built.field, built.message);
      return;
    }
    setSubmitting(true);
    try {
      if (isEdit) {
        const res = await api("PUT", "/api/token/", { ...built.body, id: editing?.id });
        if (!res.success) return;
        showSuccess(TOKEN_FORM_MSG.updated);
        onSaved();
        return;
      }
      // One request for the whole batch, made all or none by the server: a failure (already shown)
      // created nothing, so there is never a partial batch to report beside it.
      const res = await api("POST", "/api/token/", built.count === 1 ? built.body : { ...built.body, count: built.count });
      if (!res.success) return;
      showSuccess(TOKEN_FORM_MSG.created(built.count));
      onSaved();
    } finally {
      setSubmitting(false);
    }
  };

  const values = form.getValues();
  const groupOptions = Object.entries(groups).map(([value, label]) => ({ value, label: label ? `${value}（${label}）` : value }));
  const quotaNumber = Number.parseInt(String(values.remain_quota), 10) || 0;
  const budgetNumber = Number.parseInt(String(values.budget_quota), 10) || 0;
  // A refused limit must be on screen to be revealed and fixed.
  const limitsShown = limitsOpen || LIMIT_FORM_FIELDS.some((f) => form.errors[f]);

  return (
    <DrawerForm
      opened={editing !== null}
      onClose={onClose}
      title={isEdit ? "更新令牌信息" : "创建新的令牌"}
      form={form}
      onSubmit={submit}
      submitting={submitting}
      loading={loading}
    >
      <TextInput label="名称" placeholder="请输入名称" withAsterisk={!isEdit} autoComplete="off" {...form.getInputProps("name")} />

      <div>
        <TextInput label="过期时间" placeholder="永不过期（或 2026-12-31 23:59:59）" autoComplete="off" {...form.getInputProps("expiry")} />
        <Group gap={6} mt={6}>
          {EXPIRY_PRESETS.map((preset) => (
            <Button
              key={preset.label}
              size="compact-xs"
              variant="default"
              onClick={() =>
                form.setFieldValue("expiry", preset.seconds === 0 ? "" : localText(Math.floor(Date.now() / 1000) + preset.seconds))
              }
            >
              {preset.label}
            </Button>
          ))}
        </Group>
      </div>

      <Alert color="yellow" variant="light" p="xs">
        注意，令牌的额度仅用于限制令牌本身的最大额度使用量，实际的使用受到账户的剩余额度限制。
      </Alert>

      <div>
        <NumberInput
          label={`额度（等价金额：${formatQuota(quotaNumber, { ...display, inCurrency: true })}）`}
          placeholder="请输入额度"
          allowDecimal={false}
          min={0}
          disabled={values.unlimited_quota}
          {...form.getInputProps("remain_quota")}
        />
        <Group gap={6} mt={6}>
          {QUOTA_PRESETS_DOLLARS.map((d) => (
            <Button
              key={d}
              size="compact-xs"
              variant="default"
              disabled={values.unlimited_quota}
              onClick={() => form.setFieldValue("remain_quota", dollarsToQuota(d, display))}
            >
              {d}$
            </Button>
          ))}
        </Group>
      </div>

      <Switch label="无限额度" {...form.getInputProps("unlimited_quota", { type: "checkbox" })} />

      {!isEdit && (
        <div>
          <NumberInput
            label="新建数量"
            placeholder="请选择或输入创建令牌的数量"
            allowDecimal={false}
            min={1}
            max={100}
            {...form.getInputProps("count")}
          />
          <Group gap={6} mt={6}>
            {BATCH_PRESETS.map((n) => (
              <Button key={n} size="compact-xs" variant="default" onClick={() => form.setFieldValue("count", n)}>
                {n}个
              </Button>
            ))}
          </Group>
        </div>
      )}

      <div>
        <Checkbox label="启用模型限制（非必要，不建议启用）" {...form.getInputProps("model_limits_enabled", { type: "checkbox" })} />
        <MultiSelect
          mt={6}
          aria-label="限制的模型"
          placeholder="请选择该令牌可以使用的模型"
          data={[...new Set([...models, ...values.model_limits])]}
          searchable
          clearable
          disabled={!values.model_limits_enabled}
          comboboxProps={{ withinPortal: true }}
          {...form.getInputProps("model_limits")}
        />
      </div>

      <Accordion variant="contained" value={limitsShown ? "limits" : null} onChange={(v) => setLimitsOpen(v === "limits")}>
        <Accordion.Item value="limits">
          <Accordion.Control>
            <Group gap="xs">
              <Text size="sm" fw={500}>
                限制
              </Text>
              <Text size="xs" c="dimmed">
                {hasLimits(values) ? "已设置" : "不限"}
              </Text>
            </Group>
          </Accordion.Control>
          <Accordion.Panel>
            <Stack gap="sm">
              <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
                <NumberInput
                  label="每分钟请求数"
                  description="RPM，0 为不限"
                  allowDecimal={false}
                  allowNegative={false}
                  min={0}
                  {...form.getInputProps("rpm_limit")}
                />
                <NumberInput
                  label="每分钟 token 数"
                  description="TPM，0 为不限"
                  allowDecimal={false}
                  allowNegative={false}
                  min={0}
                  thousandSeparator=","
                  {...form.getInputProps("tpm_limit")}
                />
                <NumberInput
                  label="并发请求数"
                  description="同时进行，0 为不限"
                  allowDecimal={false}
                  allowNegative={false}
                  min={0}
                  {...form.getInputProps("concurrency_limit")}
                />
              </SimpleGrid>
              <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
                <NumberInput
                  label={`周期预算（等价金额：${formatQuota(budgetNumber, { ...display, inCurrency: true })}）`}
                  description="每个周期最多使用的额度，0 为不限"
                  allowDecimal={false}
                  allowNegative={false}
                  min={0}
                  {...form.getInputProps("budget_quota")}
                />
                <Select
                  label="预算周期"
                  description="每天零点、每周一、每月 1 日重新计算"
                  data={PERIOD_OPTIONS}
                  allowDeselect={false}
                  comboboxProps={{ withinPortal: true }}
                  {...form.getInputProps("budget_period")}
                  value={values.budget_period || NO_PERIOD}
                  onChange={(v) => form.setFieldValue("budget_period", !v || v === NO_PERIOD ? "" : v)}
                />
              </SimpleGrid>
            </Stack>
          </Accordion.Panel>
        </Accordion.Item>
      </Accordion>

      <Textarea
        label="IP 白名单"
        description="一行一个 IP 或 CIDR，不填则不限制"
        autosize
        minRows={2}
        maxRows={6}
        {...form.getInputProps("allow_ips")}
      />

      <div>
        <Select
          label="令牌分组"
          placeholder="默认使用用户分组"
          data={groupOptions}
          clearable
          disabled={!groupsOffered}
          comboboxProps={{ withinPortal: true }}
          {...form.getInputProps("group")}
          value={values.group || null}
          onChange={(v) => form.setFieldValue("group", v ?? "")}
        />
        {!groupsOffered && (
          <Text size="xs" c="dimmed" mt={4}>
            {TOKEN_FORM_MSG.noGroups}
          </Text>
        )}
      </div>
    </DrawerForm>
  );
}
