import type { IdenticonData, MethodStatus, MethodStep, SignatureExecution, SignatureMethod, SignatureMethodType } from './entities.js';

export type IdenticonView = Omit<IdenticonData, 'svg'> & { available: boolean; svg: string };

type MethodView = { methodType: SignatureMethodType; status: MethodStatus; step: MethodStep | null; satisfiedAt: Date | null };

export type ExecutionView = {
  id: string;
  recordId: string;
  partyId: string;
  recordVersion: number;
  status: string;
  requiredSignatureMethodCount: number;
  satisfiedMethodCount: number;
  canFinalize: boolean;
  methods: MethodView[];
  finalizedAt: Date | null;
  signatureIdenticon: IdenticonView | null;
};

export function satisfiedCount(methods: SignatureMethod[]): number {
  return new Set(methods.filter((m) => m.status === 'satisfied').map((m) => m.methodType)).size;
}

/** `can_finalize` flips exactly when the required number of distinct methods is satisfied. */
export function canFinalize(execution: SignatureExecution, methods: SignatureMethod[]): boolean {
  return execution.status === 'in_progress' && satisfiedCount(methods) >= execution.requiredMethodCount;
}

export function toIdenticonView(identicon: IdenticonData | null): IdenticonView | null {
  return identicon ? { ...identicon, available: true } : null;
}

/** Every enabled method appears: started ones with their state, the rest as `available`. */
export function toExecutionView(execution: SignatureExecution, methods: SignatureMethod[], enabled: readonly SignatureMethodType[]): ExecutionView {
  const byType = new Map(methods.map((m) => [m.methodType, m]));
  return {
    id: execution.id,
    recordId: execution.record.id,
    partyId: execution.participant.id,
    recordVersion: execution.recordVersion,
    status: execution.status,
    requiredSignatureMethodCount: execution.requiredMethodCount,
    satisfiedMethodCount: satisfiedCount(methods),
    canFinalize: canFinalize(execution, methods),
    methods: enabled.map((type) => {
      const method = byType.get(type);
      return method
        ? { methodType: type, status: method.status, step: method.status === 'pending' ? method.step : null, satisfiedAt: method.satisfiedAt }
        : { methodType: type, status: 'available', step: null, satisfiedAt: null };
    }),
    finalizedAt: execution.finalizedAt,
    signatureIdenticon: toIdenticonView(execution.identicon),
  };
}
