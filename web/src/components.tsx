import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

/** A labelled form control with an optional hint and a live counter against a limit. */
export function Field({ label, hint, counter, error, children }: {
  label: string;
  hint?: ReactNode;
  counter?: ReactNode;
  error?: string | null;
  children: (props: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }) => ReactNode;
}) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : null, counter ? `${id}-counter` : null, error ? `${id}-error` : null].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, ...(describedBy ? { 'aria-describedby': describedBy } : {}), ...(error ? { 'aria-invalid': true } : {}) })}
      {(hint || counter) && (
        <div className="field-foot">
          {hint && <span id={`${id}-hint`} className="hint">{hint}</span>}
          {counter && <span id={`${id}-counter`} className="counter" aria-live="polite">{counter}</span>}
        </div>
      )}
      {error && <p id={`${id}-error`} className="field-error">{error}</p>}
    </div>
  );
}

/** "12 / 200" that turns red past the limit. */
export function Count({ value, max, min, unit }: { value: number; max: number; min?: number; unit: string }) {
  const bad = value > max || (min !== undefined && value > 0 && value < min);
  return <span className={bad ? 'over' : undefined}>{value} / {max} {unit}{min !== undefined ? ` (min ${min})` : ''}</span>;
}

export function Alert({ kind = 'error', children }: { kind?: 'error' | 'success' | 'info'; children: ReactNode }) {
  if (!children) return null;
  return (
    <div className={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      setCopied(false);
    }
  };
  return (
    <button type="button" className="button secondary small" onClick={() => void copy()}>
      {copied ? 'Copied' : label}
      <span className="visually-hidden" aria-live="polite">{copied ? ' to the clipboard' : ''}</span>
    </button>
  );
}

/**
 * A consequential action: the first click opens a native modal dialog that says what will happen;
 * only its confirm button acts. Escape or Cancel closes it; focus returns to the trigger.
 */
export function ConfirmAction({ label, context, title, description, confirmLabel, danger, primary, onConfirm, disabled, error, children }: {
  label: string;
  /** Heard after the label, naming what it acts on where a page repeats the action (one per row). */
  context?: string;
  primary?: boolean;
  error?: string | null;
  title: string;
  description: ReactNode;
  confirmLabel?: string;
  danger?: boolean;
  disabled?: boolean;
  onConfirm: () => Promise<boolean | void> | void;
  children?: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const titleId = useId();
  const confirm = async () => {
    setBusy(true);
    try {
      const keepOpen = (await onConfirm()) === false;
      if (!keepOpen) dialog.current?.close();
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" className={`button ${danger ? 'danger-outline' : primary ? 'primary' : 'secondary'}`} disabled={disabled} onClick={() => dialog.current?.showModal()}>
        {label}
        {context && <span className="visually-hidden"> {context}</span>}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId} className="dialog">
        <h2 id={titleId}>{title}</h2>
        <div className="dialog-body">{description}</div>
        {children}
        <Alert>{error}</Alert>
        <div className="actions">
          <button type="button" className="button secondary" onClick={() => dialog.current?.close()}>Cancel</button>
          <button type="button" className={`button ${danger ? 'danger' : 'primary'}`} disabled={busy} onClick={() => void confirm()}>
            {busy ? 'Working…' : (confirmLabel ?? label)}
          </button>
        </div>
      </dialog>
    </>
  );
}

let appNavigated = false;

/** Sets the document title and moves focus to the page heading on navigation (for screen readers). */
export function PageTitle({ children, title }: { children: ReactNode; title: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Record Signing`;
    // On a fresh load the browser starts at the top (skip link first); after a client-side move, the new heading takes focus.
    if (appNavigated) heading.current?.focus({ preventScroll: true });
    appNavigated = true;
  }, [title]);
  return <h1 ref={heading} tabIndex={-1}>{children}</h1>;
}

export function Progress({ signed, total }: { signed: number; total: number }) {
  return (
    <span className="progress">
      <span className="progress-bar" aria-hidden="true">
        <span className={`progress-fill w${total === 0 ? 0 : Math.round((signed / total) * 10)}`} />
      </span>
      <span className="progress-text">{signed} of {total} signed</span>
    </span>
  );
}
