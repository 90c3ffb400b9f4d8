import { LoginForm } from "@/components/auth/login-form";

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const query = await searchParams;
  const aff = typeof query.aff === "string" ? query.aff : "";
  return <LoginForm expired={query.expired === "true"} aff={aff} />;
}
