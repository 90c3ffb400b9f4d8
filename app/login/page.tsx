import { LoginForm } from "@/components/auth/login-form";
import { optionalPageUser } from "@/lib/auth/page-user";

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const query = await searchParams;
  const aff = typeof query.aff === "string" ? query.aff : "";
  // Whether a session stands now: a stored user without one was logged in and lost it.
  const signedIn = (await optionalPageUser()) !== null;
  // ?step=2fa: a third-party sign-in's callback page sends the browser here for the code.
  return <LoginForm expired={query.expired === "true"} signedIn={signedIn} aff={aff} twoFactor={query.step === "2fa"} />;
}
