"use client";
// An expanded log row: the full content, the request's facts from `other`, and the charge written
// out (ratios, cache, audio, price) so it can be checked by hand against the recorded quota.
import { Badge, Code, Group, SimpleGrid, Stack, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { QuotaText, useQuotaDisplay } from "@/components/data/display";
import type { AdminLogItem as LogRow } from "@/lib/logs/query";
import { breakerNote, explainCharge, firstTokenSeconds, parseOther, plain, retryChain, usageAnomalyText } from "@/lib/logs/display";
import { LOG_TYPE } from "@/lib/logs/write";

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" style={{ wordBreak: "break-word" }}>
        {children}
      </Text>
    </div>
  );
}

export function LogDetails({ row, admin }: { row: LogRow; admin: boolean }) {
  const other = parseOther(row.other);
  const { quotaPerUnit } = useQuotaDisplay();
  const charge = row.type === LOG_TYPE.consume ? explainCharge(row, other, quotaPerUnit) : null;
  const frt = firstTokenSeconds(other);
  const chain = retryChain(other);
  const anomaly = usageAnomalyText(other, row);
  const facts: [string, ReactNode][] = [];
  if (other.request_path) facts.push(["请求路径", other.request_path]);
  if (row.type === LOG_TYPE.consume || row.type === LOG_TYPE.error) {
    facts.push(["用时", `${row.use_time} s`]);
    facts.push(["流式", row.is_stream ? "是" : "否"]);
  }
  if (frt !== null) facts.push([row.is_stream ? "首字时间" : "响应时间", `${plain(frt)} s`]);
  if (other.is_model_mapped && other.upstream_model_name) facts.push(["实际模型", other.upstream_model_name]);
  if (other.upstream_usage === false) facts.push(["用量来源", "上游未返回用量，按本地计数"]);
  if (other.client_gone) facts.push(["客户端", "请求中途断开"]);
  if (other.stream_end) facts.push(["流结束原因", other.stream_end]);
  if (other.ws) facts.push(["实时接口", "是"]);
  if (other.status_code) facts.push(["状态码", String(other.status_code)]);
  if (other.error_type) facts.push(["错误类型", other.error_type]);
  if (other.error_code !== undefined && other.error_code !== null && other.error_code !== "")
    facts.push(["错误代码", String(other.error_code)]);
  if (admin && chain.length > 0) facts.push(["使用渠道", chain.join(" → ")]);
  const breaker = admin ? breakerNote(other) : null;
  if (breaker) facts.push(["熔断", breaker]);

  return (
    <Stack gap="sm" py={4} data-testid="log-details">
      {row.content && (
        <div>
          <Text size="xs" c="dimmed">
            详情
          </Text>
          <Text size="sm" style={{ whiteSpace: "pre-wrap", wordBreak: "break-word" }}>
            {row.content}
          </Text>
        </div>
      )}
      {admin && other.admin_info?.error_message && <Fact label="上游原始错误（仅管理员可见）">{other.admin_info.error_message}</Fact>}
      {anomaly && (
        // Its own line, kept within the screen: the expanded cell is as wide as the table.
        <div style={{ maxWidth: "calc(100vw - 3rem)" }} data-testid="usage-anomaly">
          <Fact label="用量异常">{anomaly}</Fact>
        </div>
      )}
      {facts.length > 0 && (
        <SimpleGrid cols={{ base: 2, sm: 3, md: 5 }} spacing="xs" verticalSpacing={6}>
          {facts.map(([label, value]) => (
            <Fact key={label} label={label}>
              {value}
            </Fact>
          ))}
        </SimpleGrid>
      )}
      {charge && (
        <Stack gap={6} aria-label="计费过程">
          <Text size="xs" c="dimmed">
            计费过程
          </Text>
          <Group gap={6}>
            {charge.factors.map((f) => (
              <Badge key={f.label} variant="default" tt="none">
                {f.label} {f.value}
              </Badge>
            ))}
            {other.default_ratio && (
              <Badge color="orange" variant="light" tt="none">
                未配置倍率，按默认倍率计费
              </Badge>
            )}
          </Group>
          {charge.per_million && (
            <Text size="sm">
              输入价格 ${plain(charge.per_million.input)} / 1M tokens，补全价格 ${plain(charge.per_million.output)} / 1M tokens
            </Text>
          )}
          <Code block style={{ whiteSpace: "pre-wrap", wordBreak: "break-word" }}>
            {`${charge.formula}\n≈ ${charge.computed} 额度（四舍五入，非免费时至少 1）`}
          </Code>
          <Text size="sm">
            本条记录花费 {row.quota} 额度（
            <QuotaText quota={row.quota} digits={6} />）
            {charge.computed !== row.quota && (
              <Text span c="orange" size="sm">
                {" "}
                （与上式不同：可能是按调整后的用量或旧规则结算）
              </Text>
            )}
          </Text>
        </Stack>
      )}
    </Stack>
  );
}
