import { upsert } from "../lib/sql.mjs";
import { DEMO } from "./demo.mjs";

/**
 * Omar (student4) has an accommodation profile: half as much time again plus two minutes on every
 * timed quiz and exam, and one extra attempt (docs/decisions/accommodations.md). A later run puts
 * back the values if they were changed.
 */
export function accommodations({ now }) {
  const omar = DEMO.students[3];
  const ada = DEMO.admin;
  return [
    upsert(
      "accommodations",
      {
        tenant_id: DEMO.tenantId,
        user_id: omar.id,
        time_multiplier_hundredths: 150,
        extra_time_seconds: 120,
        extra_attempts: 1,
        note: "Demo: extra time by a medical certificate",
        updated_by: ada.id,
        updated_at: now,
      },
      { key: ["tenant_id", "user_id"], restore: ["time_multiplier_hundredths", "extra_time_seconds", "extra_attempts", "note"], touch: "updated_at" },
    ),
  ];
}
