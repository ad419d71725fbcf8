import type { McpConfirmationText } from '@kobana/nest-mcp';

type Undo = Pick<McpConfirmationText, 'undoable' | 'undoNote'>;

/**
 * Whether each destructive Kadu tool's effect can be undone, and how — shown on the approval page
 * and in the chat's confirmation. A tool not listed says nothing either way.
 */
export const KADU_UNDO: Readonly<Record<string, Undo>> = {
  kadu_tasks_run: {
    undoable: false,
    undoNote:
      'The execution spends cost units as it runs. You can cancel it while it is queued or running, which stops further spending.',
  },
  kadu_tasks_delete: {
    undoable: false,
    undoNote: 'The task can no longer be run or changed; its past executions stay in the history.',
  },
  kadu_tasks_set_launch_policy: { undoable: true, undoNote: 'Set the previous roles and members again to undo it.' },
  kadu_tasks_set_destinations: {
    undoable: true,
    undoNote: 'Set the previous destinations again to undo it; events already sent cannot be recalled.',
  },
  kadu_executions_continue: {
    undoable: false,
    undoNote: 'The execution resumes with these answers and may spend more cost units.',
  },
  kadu_executions_cancel: {
    undoable: false,
    undoNote: 'A canceled execution cannot be resumed; run the task again instead.',
  },
  kadu_files_delete: { undoable: false, undoNote: 'The file is gone for good; upload it again if you need it.' },
  kadu_webhooks_create: {
    undoable: true,
    undoNote: 'Delete the webhook to undo it; deliveries already sent cannot be recalled.',
  },
  kadu_webhooks_update: { undoable: true, undoNote: 'Change it back to undo it.' },
  kadu_webhooks_delete: {
    undoable: false,
    undoNote: 'Nothing more is delivered there; create a new webhook to start again (with a new secret).',
  },
  kadu_webhooks_rotate_secret: {
    undoable: false,
    undoNote: 'The old secret stops working at once; the receiver needs the new one.',
  },
  kadu_webhook_deliveries_replay: { undoable: false, undoNote: 'The receiver gets the delivery again.' },
  kadu_secrets_rotate: { undoable: false, undoNote: 'The current value is replaced once the new one is entered.' },
  kadu_secrets_delete: { undoable: false, undoNote: 'The value is gone for good.' },
  kadu_members_update_role: { undoable: true, undoNote: 'Change the role back to undo it.' },
  kadu_members_remove: { undoable: false, undoNote: 'They lose access at once; adding them back is a new membership.' },
};
