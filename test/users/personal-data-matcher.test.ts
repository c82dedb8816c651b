import { describe, expect, it } from "vitest";
import { isUserReferenceColumn } from "../../src/platform/users/personal-data";

/**
 * The registry test only sees today's schema; these names stand for the columns the content
 * tables will bring, so the matcher is right before they arrive.
 */
describe("isUserReferenceColumn", () => {
  it("recognises columns that hold a user id", () => {
    const userColumns = [
      "user_id",
      "student_id",
      "curator_id",
      "individual_curator_id",
      "teacher_id",
      "author_id",
      "owner_id",
      "reviewer_id",
      "sender_id",
      "recipient_id",
      "actor_user_id",
      "created_by_user_id",
      "target_user_id",
      "created_by",
      "created_by_id",
      "updated_by",
      "deleted_by",
      "submitted_by",
      "assigned_by",
      "awarded_by",
      "graded_by_id",
      "reviewed_by_id",
      "assignee_id",
      "member_id",
    ];
    expect(userColumns.filter((name) => !isUserReferenceColumn(name))).toEqual([]);
  });

  it("leaves other ids, times and sort keys alone", () => {
    const otherColumns = [
      "id",
      "tenant_id",
      "group_id",
      "course_id",
      "lesson_id",
      "session_id",
      "auth_device_id",
      "tariff_id",
      "current_tariff_id",
      "aggregate_id",
      "installation_id",
      "provider_message_id",
      "parent_id",
      "created_at",
      "updated_at",
      "deleted_at",
      "email",
      "sort_by",
      "order_by",
      "by",
      "standby",
      "idle",
    ];
    expect(otherColumns.filter((name) => isUserReferenceColumn(name))).toEqual([]);
  });
});
