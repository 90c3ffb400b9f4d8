import { LoginForm } from "@/components/auth/login-form";
import { optionalPageUser } from "@/lib/auth/page-user";

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const query = await searchParams;
  const aff = typeof query.aff === "string" ? query.aff : "";
  // Whether a session stands now: a stored user without one was logged in and lost it.
  const signedIn = (await optionalPageUser()) !== null;
  return <LoginForm expired={query.expired === "true"} signedIn={signedIn} aff={aff} />;
}
