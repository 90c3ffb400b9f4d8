import { ResetRequestForm } from "@/components/auth/reset-request-form";

export default function ResetPage() {
  return <ResetRequestForm />;
}
