import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { Link, navigate } from './router';
import { TEAM_ROLE_LABELS, useWorkspace } from './teams';

/**
 * The header's workspace switcher: the personal workspace and each team with the caller's role. A
 * disclosure of buttons rather than a select: choosing one opens that workspace's records, and a
 * select that moves the page on change would surprise keyboard and screen-reader users.
 */
export function WorkspaceSwitcher() {
  const { team, teams, select } = useWorkspace();
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const root = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const outside = (event: MouseEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('click', outside);
    return () => document.removeEventListener('click', outside);
  }, [open]);

  const choose = (teamId: string | null) => {
    select(teamId);
    setOpen(false);
    navigate('/');
  };
  const closeOnEscape = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !open) return;
    setOpen(false);
    toggle.current?.focus();
  };

  const current = team ? team.name : 'Personal';
  return (
    <div className="workspace-switcher" ref={root} onKeyDown={closeOnEscape}>
      <button type="button" ref={toggle} className="button secondary small" aria-expanded={open} aria-controls={menuId} onClick={() => setOpen(!open)}>
        <span className="visually-hidden">Workspace: </span>{current}<span aria-hidden="true"> ▾</span>
      </button>
      <div id={menuId} className="workspace-menu" hidden={!open}>
        <ul aria-label="Workspaces">
          <li>
            <button type="button" aria-current={team === null ? 'true' : undefined} onClick={() => choose(null)}>
              Personal{' '}<span className="muted small">Your own records</span>
            </button>
          </li>
          {teams.map((candidate) => (
            <li key={candidate.id}>
              <button type="button" aria-current={candidate.id === team?.id ? 'true' : undefined} onClick={() => choose(candidate.id)}>
                {candidate.name}{' '}<span className="muted small">{TEAM_ROLE_LABELS[candidate.role]}</span>
              </button>
            </li>
          ))}
        </ul>
        <Link href="/teams" className="small" onClick={() => setOpen(false)}>Manage teams</Link>
      </div>
    </div>
  );
}
