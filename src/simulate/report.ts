// What simulate reports (schema/simulate.v1.json): per Service, every strategy's scores with
// the what-ifs applied, and the rollout steps and zone disruption when asked; over a dataset,
// the aggregates per strategy. Rendered by render/simulate.ts.
import type {Recommendation} from '../advise/types.js'
import type {Aggregate} from './dataset-run.js'
import type {RolloutStepResult, ServiceSimulation, ZoneDisruption} from './simulate.js'
import type {RolloutPlan} from './workload.js'

export interface ServiceReport extends ServiceSimulation {
  /** With --rollout: the parameters the steps use and where they come from. */
  rolloutParameters?: RolloutPlan
  rollout?: RolloutStepResult[]
  disruption?: ZoneDisruption[]
  /**
   * The advisor's recommendation for the Service in the simulated state (what-ifs applied), the
   * same object explain, plan, check and watch show: simulate ranks by the KEP-2004 score, the
   * advisor by in-zone share within the overload bound, and this says what to set.
   */
  recommendation?: Recommendation
}

export interface SimulateReport {
  apiVersion: 'kubectl-topology.io/v1'
  kind: 'TopologySimulation'
  source: 'live' | 'snapshot' | 'synthetic'
  trafficModel: string
  whatIf: string[]
  services: ServiceReport[]
}

export interface DatasetReport {
  apiVersion: 'kubectl-topology.io/v1'
  kind: 'TopologySimulationDataset'
  dataset: string
  seed: string | null
  clusters: number
  /** what stands in for data the rows lack, per strategy */
  notes: string[]
  aggregates: Aggregate[]
}
