// The centered card the login and register forms sit in.
import { Card, Center, Title } from "@mantine/core";
import type { ReactNode } from "react";

export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Center py={{ base: "md", sm: 60 }}>
      <Card withBorder shadow="sm" radius="md" p="xl" w="100%" maw={440}>
        <Title order={2} ta="center" mb="lg">
          {title}
        </Title>
        {children}
      </Card>
    </Center>
  );
}
