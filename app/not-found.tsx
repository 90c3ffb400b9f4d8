import { Alert, Anchor, Container, Text } from "@mantine/core";

export default function NotFound() {
  return (
    <Container size="sm" py="xl">
      <Alert color="red" variant="light" title="页面不存在">
        <Text size="sm">请检查你的浏览器地址是否正确</Text>
        <Anchor href="/" size="sm" mt="xs" display="inline-block">
          返回首页
        </Anchor>
      </Alert>
    </Container>
  );
}
