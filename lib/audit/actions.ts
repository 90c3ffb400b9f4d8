// The audit trail's actions: each dotted name a writer may use, with the label the /audit page
// shows and filters by. The writer accepts only these names (lib/audit/write.ts), so an action
// cannot be written without a label. Client-safe: no server imports.

export const AUDIT_ACTIONS = {
  "user.create": "创建用户",
  "user.update": "编辑用户信息",
  "user.role": "修改用户角色",
  "user.status": "启用/禁用用户",
  "user.quota": "修改用户额度",
  "user.password": "重置用户密码",
  "user.delete": "注销用户",
  "user.purge": "永久删除用户",
  "user.2fa_reset": "重置两步验证",
  "user.passkey_reset": "重置通行密钥",
  "user.binding_clear": "解除第三方绑定",
  "option.update": "修改系统设置",
  "channel.create": "创建渠道",
  "channel.update": "编辑渠道",
  "channel.status": "启用/禁用渠道",
  "channel.key_reveal": "查看渠道密钥",
  "channel.multi_key_manage": "管理多密钥渠道的密钥",
  "channel.delete": "删除渠道",
  "channel.delete_batch": "批量删除渠道",
  "channel.delete_disabled": "删除已禁用渠道",
  "redemption.create": "创建兑换码",
  "redemption.update": "编辑兑换码",
  "redemption.status": "启用/禁用兑换码",
  "redemption.delete": "删除兑换码",
  "log.cleanup": "清理日志",
  "topup.complete": "手动确认充值订单",
  "import.new_api": "从 new-api 导入",
} as const satisfies Record<string, string>;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

export const isAuditAction = (name: string): name is AuditAction => Object.hasOwn(AUDIT_ACTIONS, name);

/** An action's label; a name this build does not know (written by a newer one) is shown as stored. */
export const auditActionLabel = (name: string): string => (isAuditAction(name) ? AUDIT_ACTIONS[name] : name);

/** The actions for the /audit page's filter, in the order above. */
export const AUDIT_ACTION_OPTIONS = Object.entries(AUDIT_ACTIONS).map(([value, label]) => ({ value, label }));

/** What an audit row acted on. */
export const AUDIT_TARGET_LABEL: Record<string, string> = {
  user: "用户",
  option: "设置",
  channel: "渠道",
  redemption: "兑换码",
  log: "日志",
  topup: "充值订单",
};

/** The names of `detail` fields as the /audit page shows them; other fields show as stored. */
export const AUDIT_FIELD_LABEL: Record<string, string> = {
  username: "用户名",
  display_name: "显示名称",
  email: "邮箱",
  group: "分组",
  role: "角色",
  status: "状态",
  quota: "额度",
  value: "值",
  name: "名称",
  type: "类型",
  key: "密钥",
  count: "数量",
  ids: "ID",
  base_url: "Base URL",
  models: "模型",
  model_mapping: "模型映射",
  status_code_mapping: "状态码复写",
  output_limits: "输出上限",
  other: "其他参数",
  openai_organization: "组织",
  priority: "优先级",
  weight: "权重",
  auto_ban: "自动禁用",
  test_model: "测试模型",
  max_input_tokens: "最大输入 token",
  tag: "标签",
  before: "截止时间",
  provider: "登录方式",
  trade_no: "订单号",
  user_id: "用户 ID",
  money: "支付金额",
  payment_method: "支付方式",
};
