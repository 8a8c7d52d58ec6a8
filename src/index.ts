/**
 * beaconkit — public exports only. Importing this module never loads noble, the D-Bus library,
 * mqtt.js or aedes: the BLE stack starts only inside `NobleSource.start()` /
 * `BluezSource.start()`, mqtt.js inside `MqttPublisher.connect()`, aedes inside `startBroker()`.
 */

export type { Advertisement, ServiceData } from './advertisement.js'
export type {
  Beacon,
  BeaconAdapter,
  BeaconFlags,
  BeaconReading,
  EddystoneEid,
  EddystoneEncryptedTlm,
  EddystoneInfo,
  EddystonePlainTlm,
  EddystoneUid,
  EddystoneUrl,
  FrameKind,
  MovingState,
  Proximity,
  RejectReason,
  SecureInfo,
} from './reading.js'
export {
  AccountError,
  AdapterError,
  BeaconkitError,
  BluetoothUnavailableError,
  BroadcastKeyError,
  InvalidOptionError,
  QueueError,
  MqttError,
  TemporaryFailureError,
} from './errors.js'
export type {
  AccountErrorCode,
  AdapterErrorCode,
  AdapterFailure,
  BluetoothUnavailableCode,
  BroadcastKeyErrorCode,
  InvalidOptionCode,
  MqttErrorCode,
  QueueErrorCode,
  QueueLockHolder,
} from './errors.js'
export type { TemporaryFailureCode } from './errors.js'
export { DeveloperApiError, PositioningThreadError, WebhookError } from './errors.js'
export type { DeveloperApiErrorCode, PositioningThreadErrorCode, WebhookErrorCode } from './errors.js'
export { UNHEARD_ERROR_WARNING, UNHEARD_WARNING } from './util/unheard.js'
export { RealClock, VirtualClock } from './clock.js'
export { PacedClock } from './paced-clock.js'
export type { CancelTimer, Clock } from './clock.js'
export type { AdapterState, AdvertisementSource, AdvertisementSourceEvents } from './sources/source.js'
export {
  decodeEddystone,
  encodeEddystoneEid,
  encodeEddystoneTlm,
  encodeEddystoneUid,
  encodeEddystoneUrl,
} from './frames/eddystone.js'
export type { EddystoneSealedTlm } from './frames/eddystone.js'
export { BroadcastKey, parseBroadcastKey } from './secure/broadcast-key.js'
export type { ParseBroadcastKeyOptions } from './secure/broadcast-key.js'
export { Keyring } from './secure/keyring.js'
export { IdentityKey, parseIdentityKey, rpaFor } from './secure/identity-key.js'
export { IdentityKeyring } from './secure/identity-keyring.js'
export { IdentityResolver } from './secure/identity-resolver.js'
export type { IdentityResolverOptions, IdentityResolverStats } from './secure/identity-resolver.js'
export { importBluezIdentityKeys } from './secure/bluez-identities.js'
export type { BluezImport, BluezImportProblem } from './secure/bluez-identities.js'
export { IdentityKeyError } from './errors.js'
export type { IdentityKeyErrorCode } from './errors.js'
export type { SecureStats } from './secure/open.js'
export { AccountClient } from './cloud/account-client.js'
export type { AccountClientOptions, BeaconLogQuery, CallOptions, UploadResult } from './cloud/account-options.js'
export type { FetchLike } from './transport/http.js'
export { Uploader } from './cloud/uploader.js'
export type {
  LogUploadClient,
  RetryInfo,
  UploadEventArgs,
  UploadEventSource,
  UploaderEvents,
  UploaderOptions,
  UploaderStats,
} from './cloud/uploader-options.js'
export { MemoryQueue } from './queue/queue.js'
export type {
  DropInfo,
  DropReason,
  MemoryQueueOptions,
  QueueOpenReport,
  QueuedRecord,
  QueueWarning,
  RecordQueue,
  UploadQueue,
  UploadQueueEvents,
} from './queue/queue.js'
export { FileQueue } from './queue/file-queue.js'
export type { FileQueueOptions, FileQueueStats } from './queue/file-queue-options.js'
export { DEFAULT_EMULATOR_ACCOUNT, startEmulator } from './emulator/emulator.js'
export type { Emulator, EmulatorFaults, EmulatorOptions } from './emulator/emulator.js'
export type { EmulatorAccount, EmulatorStore, LogSource, StoredLog } from './emulator/emulator-store.js'
export type { CatalogueDevice } from './emulator/emulator-seed.js'
export type { DeveloperEmulator, DeveloperEmulatorOptions } from './emulator/dev-emulator.js'
export type { Delivery } from './emulator/dev-emulator-push.js'
export type { DeveloperStore, EmulatorTask } from './emulator/dev-emulator-store.js'
export { DeveloperClient } from './developer/client.js'
export type { DeveloperCallOptions, DeveloperClientOptions, Signer, SignRequest } from './developer/client-options.js'
export { THRESHOLD_KEYS } from './developer/rules.js'
export type {
  DownlinkResult,
  HistoryQuery,
  HistoryRecord,
  InfoUpdate,
  LinkResult,
  NormalStatus,
  Page,
  PageInfo,
  PageQuery,
  SensorDevice,
  Station,
  UpdateResult,
} from './developer/types.js'
export { createWebhookHandler } from './developer/webhook.js'
export type {
  WebhookHandler,
  WebhookHandlerOptions,
  WebhookRequest,
  WebhookStats,
} from './developer/webhook-options.js'
export { startWebhookServer } from './developer/webhook-server.js'
export type { WebhookServer, WebhookServerOptions } from './developer/webhook-server.js'
export { parseWebhookMessage } from './developer/webhook-message.js'
export type { DataMessage, SensorData, TaskEvent, Vector3, WebhookMessage } from './developer/webhook-message.js'
export type { AccountBeacon, DeploymentMap, PlacedBeacon, StoredLogRecord } from './cloud/records.js'
export type { BeaconLogRecord, GeoLocation, LogSensor } from './reading.js'
export { decodeAdvertisement } from './decode/decode.js'
export type { DecodeOptions } from './decode/decode.js'
export { Decoder } from './decode/decoder.js'
export type { DecodeStats, DecoderOptions } from './decode/decoder.js'
export { encodeIBeacon, VENDOR_DEFAULT_UUID } from './frames/ibeacon.js'
export type { IBeaconFrame } from './frames/ibeacon.js'
export { encodeE780 } from './frames/e780.js'
export type { E780Fields } from './frames/e780.js'
export { encodeE781, E781_MODE } from './frames/e781.js'
export type { E781EncodeOptions, E781Fields, E781Mode } from './frames/e781.js'
export { accuracy, proximity, DEFAULT_PROXIMITY_THRESHOLDS } from './decode/distance.js'
export type { ProximityThresholds } from './decode/distance.js'
export { NobleSource } from './sources/noble/noble.js'
export type { NobleSourceOptions } from './sources/noble/noble.js'
export type { NobleSourceStats } from './sources/noble/stats.js'
export { BluezSource } from './sources/bluez/bluez.js'
export type { BluezSourceOptions } from './sources/bluez/bluez.js'
export type { BluezSourceStats } from './sources/bluez/stats.js'
export { formatAdvertisementLine, formatRecordingHeader, parseAdvertisementLine } from './advertisement.js'
export type { ParsedLine, RecordingHeader } from './advertisement.js'
export { BeaconScanner } from './scanner/scanner.js'
export type { ScannerOptions } from './scanner/scanner.js'
export type { ScannerEvents, ScannerStats } from './scanner/scanner-types.js'
export type { ScannerEventArgs, ScannerEventSource, ScannerSink } from './scanner/sink.js'
export type { EventIterator, ScannerEvent, ScannerEventIterator, ScannerWarning } from './scanner/event-stream.js'
export type { BeaconFilter } from './range/filter.js'
export type { BeaconChanges, ChangeField } from './range/merge.js'
export { DEFAULT_SMOOTHING } from './range/rssi-filter.js'
export type { SmoothingOptions } from './range/rssi-filter.js'
export type { RangeTableStats } from './range/range-table-types.js'
export { ReplaySource } from './sources/replay.js'
export type { ReplayInput, ReplayOptions, ReplayStats } from './sources/replay-options.js'
export { AdvertisementRecorder } from './sources/recorder.js'
export type { RecorderEvents, RecorderOptions, RecorderStats } from './sources/recorder.js'
export { CombinedSource, combineSources } from './sources/combined.js'
export type {
  AdapterStatus,
  AdapterWarning,
  CombinedSourceEvents,
  CombinedSourceOptions,
  NamedSource,
  SourceEntry,
} from './sources/combined.js'
export { SimulatedSource } from './sources/simulated.js'
export type { SimulatedDevice, SimulatedSourceOptions, SimulatedVendorFrame, Walk } from './sources/simulated.js'
export { SAMPLE_BROADCAST_KEY, siteScenario } from './sources/scenario.js'
export type { JsonEvent } from './scanner/json-events.js'
export { MqttPublisher } from './mqtt/publisher.js'
export type { MqttPublisherOptions } from './mqtt/publisher-options.js'
export type {
  MqttConnectionState,
  MqttPublisherEvents,
  MqttPublisherStats,
  PublisherEventSource,
} from './mqtt/publisher-types.js'
export type { MqttAckWarning, MqttCloseResult } from './mqtt/inflight.js'
export type { MqttClientLike } from './mqtt/client.js'
export type { MqttTlsOptions } from './mqtt/link-settings.js'
export type { MqttDropInfo, MqttDropReason, MqttRefusedInfo } from './mqtt/outbox-types.js'
export type { MqttRefusedReason } from './mqtt/refusals.js'
export type { GatewayStatus, RssiBatch, RssiReading, StatusFields } from './mqtt/payloads.js'
export {
  anyGatewayBeaconTopic,
  anyGatewayStatusTopic,
  GatewayTopics,
  haObjectId,
  inputsStatusTopic,
} from './mqtt/topics.js'
export { isPublishTopic, isTopicLevel } from './util/topic-level.js'
export { haConfig, haConfigTopic } from './mqtt/ha-config.js'
export { HA_FIELDS } from './mqtt/ha-fields.js'
export type { HaBeaconsMode } from './mqtt/home-assistant.js'
export type { HaSettings } from './mqtt/ha-config.js'
export type { HaField } from './mqtt/ha-fields.js'
export { HA_GATE_DEFAULTS } from './mqtt/ha-gate.js'
export type { HaGateOptions, HaGateStats, HomeAssistantOptions } from './mqtt/ha-gate.js'
export { HA_BEACONS_DEFAULT } from './mqtt/ha-gateway.js'
export type { GatewayHomeAssistantOptions, HaPublisherStats } from './mqtt/ha-gateway.js'
export { startBroker } from './mqtt/broker.js'
export type { BrokerOptions, RunningBroker } from './mqtt/broker.js'
export { Positioner } from './positioning/positioner.js'
export type { PositionerOptions, PositionerStats } from './positioning/positioner-options.js'
export { ThreadedPositioner } from './positioning/positioner-thread.js'
export type { ThreadedPositionerOptions, ThreadedPositionerStats } from './positioning/positioner-thread-types.js'
export { ScannerLocator } from './positioning/scanner-locator.js'
export type {
  LocatableScanner,
  LocatorBeacon,
  ScannerLocatorEvents,
  ScannerLocatorOptions,
  ScannerPosition,
} from './positioning/scanner-locator.js'
export { RadioMap } from './positioning/radio-map.js'
export type { AnchorModel, Interpolation, RadioMapOptions } from './positioning/radio-map.js'
export type { ReferencePoint } from './positioning/survey-interpolation.js'
export { WalkableGrid } from './positioning/grid.js'
export { SurveyPoints } from './positioning/survey.js'
export type { SurveyCell, SurveyPoint } from './positioning/survey.js'
export { DEFAULT_PATH_LOSS, fitPathLoss } from './positioning/path-loss.js'
export type { PathLoss } from './positioning/path-loss.js'
export { DEFAULT_GRID_FILTER } from './positioning/grid-filter-params.js'
export type { GridFilterParams } from './positioning/grid-filter-params.js'
export { POSITIONING_METHODS } from './positioning/types.js'
export type { Observation, PositionEstimate, PositioningMethod, SurveySample } from './positioning/types.js'
export { Site } from './positioning/site.js'
export { FleetTracker } from './fleet/tracker.js'
export { ForeignBridge } from './inputs/bridge.js'
export type { ForeignBridgeEvents, ForeignBridgeOptions, ForeignBridgeStats } from './inputs/bridge-options.js'
export type { StaleSweepStats } from './inputs/stale-sweep.js'
export type { ForeignFormat, ForeignInput } from './inputs/foreign.js'
export { parseInputSpec } from './inputs/inputs-spec.js'
export { EspHomeProxy } from './inputs/esphome/proxy.js'
export type { EspHomeProxyEvents, EspHomeProxyOptions, EspHomeProxyStats } from './inputs/esphome/proxy.js'
export { EspHomeInputs, MAX_PROXIES } from './inputs/esphome/inputs.js'
export type { EspHomeInputsEvents, EspHomeInputsOptions } from './inputs/esphome/inputs.js'
export { EspHomeKeys } from './inputs/esphome/keys.js'
export { EspHomeError } from './inputs/esphome/errors.js'
export type { EspHomeErrorCode } from './inputs/esphome/errors.js'
export { DEFAULT_ESPHOME_PORT, parseEspHomeTarget } from './inputs/esphome/target.js'
export type { EspHomeTarget } from './inputs/esphome/target.js'
export type { DeviceInfo as EspHomeDeviceInfo } from './inputs/esphome/messages.js'
export type { FleetEvent } from './fleet/tracker-events.js'
export type {
  FleetGatewayClock,
  FleetGatewayEvent,
  FleetScaleOutOptions,
  FleetTrackerEvents,
  FleetTrackerOptions,
  FleetTrackerStats,
} from './fleet/tracker-types.js'
export { rssiPartition } from './mqtt/partition.js'
export type { FleetPositioning } from './fleet/site-positioner.js'
export type { FleetBeacon, FleetGatewayReading, FleetPosition, PositionEstimator } from './fleet/fleet-beacon.js'
export type { FleetStateOptions, FleetStateStats } from './fleet/fleet-state-options.js'
export type { RoomChange, RoomOptions } from './fleet/room-choice.js'
export type { FleetGatewaySummary, GatewaySummaryEntry } from './fleet/gateway-summary.js'
export type { GatewayState } from './fleet/gateway-registry.js'
export type { Anchor, AnchorKind, Area, Room, Wall } from './positioning/site.js'
export type { BeaconName } from './positioning/beacon-names.js'
export type { FleetValues } from './fleet/beacon-values.js'
export type { BeaconFactsStats } from './fleet/beacon-facts.js'
export { DEFAULT_FORGET_AFTER_MS } from './fleet/fleet-presence.js'
export type { FleetPresenceState, FleetPresenceStats } from './fleet/fleet-presence.js'
export { SiteSimulator } from './simulation/site-simulator.js'
export { SiteGatewaySource } from './simulation/site-gateway-source.js'
export type {
  SiteHeard,
  SiteSimulatorEvents,
  SiteSimulatorOptions,
  SiteSimulatorStats,
  SiteTruth,
} from './simulation/site-simulator-types.js'
export { siteBeaconsFromJSON } from './simulation/site-beacons.js'
export type { SiteBeacon, SitePath, SitePoint } from './simulation/site-beacons.js'
export { DEFAULT_RADIO, radioFromJSON } from './simulation/site-radio.js'
export type { RadioModel } from './simulation/site-radio.js'
export { loadConfig } from './config/load-config.js'
export type { BeaconkitConfig, LoadConfigSources } from './config/load-config.js'
export { ConfigError } from './config/config-error.js'
export type { ConfigProblem } from './config/schema.js'
export { runSite } from './gateway/run-site.js'
export { startGateway } from './gateway/start-gateway.js'
export { startFleet } from './gateway/start-fleet.js'
export type { RunningFleet } from './gateway/start-fleet.js'
export type { FleetConfig, FleetHooks, FleetRuntime } from './gateway/fleet-context.js'
export type { GatewayStopReport, RunningGateway } from './gateway/start-gateway.js'
export type { GatewayConfig, GatewayHooks, GatewayRuntime } from './gateway/gateway-context.js'
export type { RunningSite, RunSiteOptions, SiteGateway } from './gateway/run-site.js'
export { MAX_STREAMS_PER_CLIENT, startMapServer } from './web/map-server.js'
export type { MapServer, MapServerOptions } from './web/map-server.js'
export { MAX_STREAM_BUFFER_BYTES, STREAM_STALL_MS } from './web/event-stream.js'
export type { DetailsSource, LiveSnapshot, LiveUpdate } from './web/live-view.js'
export type { DetailField, ViewBeacon, ViewDetails, ViewGateway, ViewLogEntry, ViewPlan } from './web/view.js'
export { MqttBeaconDetails } from './web/beacon-details.js'
export type { MqttBeaconDetailsOptions, BeaconDetailsStats } from './web/beacon-details.js'
export { MAX_DETAILS_BYTES } from './fleet/beacon-claims.js'
export { FleetGateways } from './web/known-gateways.js'
export type { GatewayWitness } from './web/known-gateways.js'
export { CLAIM_LIMITS } from './web/gateway-claims.js'
export type { ClaimLimits, ClaimStats } from './web/gateway-claims.js'
export { FleetRecorder, FLEET_RECORDING_FORMAT } from './fleet/fleet-recorder.js'
export { FleetTimeline } from './web/timeline.js'
// Floors, rooms taught in place, self-calibrating gateways, away in seconds (#39).
export { RoomLocator } from './positioning/room-locator.js'
export type { RoomLocatorOptions, RoomReading, RoomDecision } from './positioning/room-locator.js'
export type { RoomHysteresis } from './positioning/room-hysteresis.js'
export { RoomGeometry } from './positioning/room-geometry.js'
export type { GeometryOptions, GeometryRoom } from './positioning/room-geometry.js'
export type { ScoreOptions } from './positioning/room-scores.js'
export { GatewayOffsets } from './positioning/gateway-offsets.js'
export type { OffsetOptions, OffsetSample } from './positioning/gateway-offsets.js'
export { Fingerprints, FingerprintRecorder, matchFingerprint } from './positioning/fingerprints.js'
export type {
  FingerprintGateway,
  FingerprintLimits,
  FingerprintSample,
  MatchOptions,
} from './positioning/fingerprints.js'
export type { Floor } from './positioning/site-floors.js'
export { AwayTimer } from './fleet/away-timer.js'
export type { AwayOptions } from './fleet/away-timer.js'
export { lossProbability, meanRssi, wallLoss } from './simulation/site-radio.js'
