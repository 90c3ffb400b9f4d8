import { Alert, Stack, Title } from "@mantine/core";

// Landing page after login. The token list, search and editor arrive with the token issue.
export default function TokenPage() {
  return (
    <Stack gap="md">
      <Title order={3}>令牌管理</Title>
      <Alert color="yellow" variant="light">
        令牌无法精确控制使用额度，只允许自用，请勿直接将令牌分发给他人。
      </Alert>
    </Stack>
  );
}
