import { useMutation, useQuery, type CombinedError } from 'urql';
import { Alert, ConfirmAction, PageTitle } from '../components';
import { DeleteTemplateDocument, TemplatesDocument, type TemplateRowFragment } from '../graphql/generated';
import { describeError } from '../lib/errors';
import { formatDate } from '../lib/format';
import { templateTypeLabel } from '../lib/templates';
import { Link } from '../router';
import { canCreateFor, useWorkspace } from '../teams';

/** The page of a template that is loading, or that the caller may not see (the service answers not found). */
export function TemplateUnavailable({ title, fetching, error }: { title: string; fetching: boolean; error: CombinedError | undefined }) {
  return (
    <section>
      <PageTitle title={title}>{fetching ? 'Loading template…' : 'Template not available'}</PageTitle>
      <Alert>{describeError(error)}</Alert>
      <Link href="/templates">Back to the templates</Link>
    </section>
  );
}

/** Every mutation answering a Template (or deleting one) reads the list again, even while it is empty. */
export const TEMPLATES_CONTEXT = { additionalTypenames: ['Template'] };

/** The caller's templates, or the selected team's (the header's switcher), with their actions. */
export function TemplatesPage() {
  const workspace = useWorkspace();
  const team = workspace.team;
  const [list, refetch] = useQuery({ query: TemplatesDocument, variables: team ? { teamId: team.id } : {}, pause: !workspace.ready, context: TEMPLATES_CONTEXT });
  const templates = list.data?.templates ?? [];
  const mayChange = !team || canCreateFor(team.role);
  const heading = team ? `Templates of ${team.name}` : 'Your templates';
  return (
    <section>
      <div className="page-head">
        <div>
          <PageTitle title="Templates">{heading}</PageTitle>
          <p className="lead">A text with <code>{'{{placeholders}}'}</code>, its party roles and defaults: fill it in to make a draft, or send it to many people at once from a CSV file.</p>
        </div>
        {mayChange && <Link className="button primary" href="/templates/new">New template</Link>}
      </div>
      <Alert>{describeError(list.error)}</Alert>
      {list.data && templates.length === 0 ? (
        <p className="card empty">{team ? `${team.name} has no templates yet.` : 'You have no templates yet.'}</p>
      ) : (
        <ul className="record-list" aria-label="Templates" aria-busy={list.fetching}>
          {templates.map((template) => (
            <TemplateItem key={template.id} template={template} mayChange={mayChange} onDeleted={() => refetch({ requestPolicy: 'network-only' })} />
          ))}
        </ul>
      )}
    </section>
  );
}

function TemplateItem({ template, mayChange, onDeleted }: { template: TemplateRowFragment; mayChange: boolean; onDeleted: () => void }) {
  const [deleted, remove] = useMutation(DeleteTemplateDocument);
  const confirmDelete = async () => {
    const result = await remove({ id: template.id }, TEMPLATES_CONTEXT);
    if (result.error) return false;
    onDeleted();
  };
  return (
    <li data-template={template.name}>
      <div>
        <Link className="record-title" href={`/templates/${template.id}`}>{template.name}</Link>
        <div className="record-meta">
          <span>{templateTypeLabel(template.recordType)}</span>
          <span>{template.fields.length === 1 ? '1 field' : `${template.fields.length} fields`}</span>
          <span>{template.parties.length === 1 ? '1 role' : `${template.parties.length} roles`}</span>
          <span>Version {template.version}</span>
          <span>Changed {formatDate(template.updatedAt)}</span>
        </div>
      </div>
      <div className="record-side template-actions">
        <Link className="button primary small" href={`/templates/${template.id}/use`}>Use<span className="visually-hidden"> {template.name}</span></Link>
        <Link className="button secondary small" href={`/templates/${template.id}/bulk`}>Bulk send<span className="visually-hidden"> {template.name}</span></Link>
        {mayChange && (
          <ConfirmAction label="Delete" context={template.name} danger title={`Delete ${template.name}?`} confirmLabel="Delete template"
            description={<p>Records made from it stay as they are and keep naming its version.</p>}
            error={describeError(deleted.error)} onConfirm={confirmDelete} />
        )}
      </div>
    </li>
  );
}
