// Test helper: one Dawn (npm `webgpu`) GPUDevice per test process, plus a
// one-shot compute runner that fails loudly on WGSL validation errors.
// Without a GPU it uses SwiftShader (XDG_RUNTIME_DIR / VK_ICD_FILENAMES are set
// here when unset); getTestDevice() returns null when no adapter exists, so
// suites can skip — except under CI=true, where it throws.

import { create, globals } from 'webgpu';

let devicePromise: Promise<GPUDevice | null> | undefined;

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

async function initDevice(): Promise<GPUDevice | null> {
  if (!process.env.XDG_RUNTIME_DIR) process.env.XDG_RUNTIME_DIR = '/tmp';
  if (!process.env.VK_ICD_FILENAMES) process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  Object.assign(globalThis, globals);
  const g = globalThis as { __jaxtsGpu?: GPU };
  // Keep the GPU object reachable for the whole process: Dawn aborts when it
  // is garbage-collected while a device is alive.
  if (!g.__jaxtsGpu) g.__jaxtsGpu = create([]);
  const gpu = g.__jaxtsGpu;
  const adapter = await gpu.requestAdapter();
  if (!adapter) {
    if (process.env.CI === 'true') throw new Error('getTestDevice: no WebGPU adapter (CI=true)');
    return null;
  }
  const l = adapter.limits;
  const device = await adapter.requestDevice({
    requiredLimits: {
      maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
      maxBufferSize: l.maxBufferSize,
      maxStorageBuffersPerShaderStage: l.maxStorageBuffersPerShaderStage,
      maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
      maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
      maxComputeWorkgroupSizeX: l.maxComputeWorkgroupSizeX,
      maxComputeWorkgroupsPerDimension: l.maxComputeWorkgroupsPerDimension,
    },
  });
  device.lost.then((info) => {
    if (info.reason !== 'destroyed') console.error(`getTestDevice: device lost: ${info.message}`);
  });
  return device;
}

/**
 * The process-wide test device (created on first call), or null when there is
 * no WebGPU adapter. Throws instead of returning null when CI=true.
 */
export async function getTestDevice(): Promise<GPUDevice | null> {
  if (!devicePromise) {
    devicePromise = initDevice().catch((e: unknown) => {
      devicePromise = undefined;
      throw e;
    });
  }
  return devicePromise;
}

type InputArray = Float32Array | Uint32Array | Int32Array | Float64Array;

/**
 * Runs one compute dispatch: inputs bound read-only at @group(0) @binding(0..n-1),
 * the output (outputBytes, read-write storage) at @binding(n), as the WebGPU
 * backend binds a kernel; `constants` are the pipeline's override constants
 * (for a generated kernel, `devices` and the input strides `st<K>`: with
 * { devices: N } each binding holds N stacked copies and the 1-D grid covers
 * them all). Returns a copy of the output. Shader-module and pipeline creation run inside
 * a 'validation' error scope; any error (or compilation error message) rejects
 * with its text.
 */
export async function runCompute(
  device: GPUDevice,
  wgsl: string,
  entry: string,
  inputs: InputArray[],
  outputBytes: number,
  workgroups: number,
  constants: Record<string, number> = {},
): Promise<ArrayBuffer> {
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code: wgsl });
  const info = await module.getCompilationInfo();
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: entry, constants } });
  const err = await device.popErrorScope();
  const compileErrors = info.messages.filter((m) => m.type === 'error');
  if (err || compileErrors.length > 0) {
    const msgs = compileErrors.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`);
    if (err) msgs.unshift(err.message);
    throw new Error(`WGSL validation failed:\n${msgs.join('\n')}`);
  }

  const buffers: GPUBuffer[] = [];
  const entries: GPUBindGroupEntry[] = [];
  inputs.forEach((arr, i) => {
    const size = Math.max(4, Math.ceil(arr.byteLength / 4) * 4);
    const buf = device.createBuffer({ size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(buf, 0, arr.buffer, arr.byteOffset, arr.byteLength);
    buffers.push(buf);
    entries.push({ binding: i, resource: { buffer: buf } });
  });
  const outSize = Math.max(4, Math.ceil(outputBytes / 4) * 4);
  const out = device.createBuffer({ size: outSize, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  entries.push({ binding: inputs.length, resource: { buffer: out } });
  const staging = device.createBuffer({ size: outSize, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });

  device.pushErrorScope('validation');
  const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bindGroup);
  pass.dispatchWorkgroups(workgroups);
  pass.end();
  enc.copyBufferToBuffer(out, 0, staging, 0, outSize);
  device.queue.submit([enc.finish()]);
  const runErr = await device.popErrorScope();
  if (runErr) throw new Error(`runCompute: ${runErr.message}`);

  await staging.mapAsync(GPUMapMode.READ);
  const result = staging.getMappedRange().slice(0, outputBytes);
  staging.unmap();
  for (const b of buffers) b.destroy();
  out.destroy();
  staging.destroy();
  return result;
}
