// SPDX-License-Identifier: GPL-2.0-only
//
// The fitter recovers known parameters from synthetic data with noise (fixed
// seed): each true value lies inside the reported bootstrap interval, and the
// interval is narrow enough to mean something (bounds stated per test). The
// data are generated here from the models' formulas (contrib/analytic/doc/
// analytic.md) written out by hand, not
// through the code under test.
#include "calibration-parameters.h"
#include "calibration.h"
#include "input-error.h"
#include "measurement-reader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace ns3;

namespace
{

// Samples (S, T) of one source; T = f(S) x (1 + noise), noise ~ N(0, sigma).
MeasurementSet
Synthetic(const std::string& collective,
          uint32_t ranks,
          const std::vector<uint64_t>& sizes,
          const std::function<double(double)>& f,
          double sigma,
          uint64_t seed,
          MeasurementKind kind = MeasurementKind::LATENCY)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0.0, sigma);
    MeasurementSet set;
    MeasurementSource src;
    src.file = "synthetic";
    src.firstLine = 1;
    src.collective = collective;
    src.ranks = ranks;
    src.processes = ranks;
    set.sources.push_back(src);
    uint32_t line = 1;
    for (uint64_t s : sizes)
    {
        MeasurementSample m;
        m.collective = collective;
        m.ranks = ranks;
        m.bytes = s;
        m.timeS = f(static_cast<double>(s)) * (1 + noise(rng));
        m.kind = kind;
        m.file = "synthetic";
        m.line = line++;
        set.samples.push_back(m);
    }
    return set;
}

std::vector<uint64_t>
PowersOfTwo(int from, int to)
{
    std::vector<uint64_t> v;
    for (int k = from; k <= to; ++k)
    {
        v.push_back(uint64_t(1) << k);
    }
    return v;
}

const CalibrationFit&
Only(const std::vector<CalibrationFit>& fits, const std::string& model)
{
    for (const auto& f : fits)
    {
        if (f.model == model)
        {
            return f;
        }
    }
    throw std::runtime_error("no fit " + model);
}

// truth in [lo, hi], and the interval no wider than maxRelWidth x truth.
void
ExpectCovers(const ParameterEstimate& e, double truth, double maxRelWidth, const std::string& name)
{
    ASSERT_TRUE(e.Known()) << name;
    EXPECT_LE(e.lo, truth) << name << " = " << e.value << " [" << e.lo << ", " << e.hi << "]";
    EXPECT_GE(e.hi, truth) << name << " = " << e.value << " [" << e.lo << ", " << e.hi << "]";
    EXPECT_LT(e.hi - e.lo, maxRelWidth * truth) << name << " [" << e.lo << ", " << e.hi << "]";
}

bool
HasDiagnostic(const CalibrationFit& f, const std::string& text)
{
    for (const auto& d : f.diagnostics)
    {
        if (d.find(text) != std::string::npos)
        {
            return true;
        }
    }
    return false;
}

CalibrationOptions
Models(std::vector<std::string> models)
{
    CalibrationOptions o;
    o.models = std::move(models);
    return o;
}

} // namespace

// Point to point, T = alpha + n / beta with alpha = 5 us, beta = 450 GB/s (the
// H100 NVLink example of contrib/analytic/doc/analytic.md), 2 % noise on 28
// sizes 8 B .. 1 GiB. The relative standard error of alpha is about 2 % /
// sqrt(14 latency-bound sizes) ~ 0.5 %, so a 95 % interval is about 2 % wide:
// 10 % is a generous bound that a wrong fit (e.g. absolute instead of relative
// residuals, which ignore the small sizes) would still fail.
TEST(CalibrationFit, AlphaBetaRecoversWithinInterval)
{
    const double alpha = 5e-6;
    const double beta = 450e9;
    auto set = Synthetic("p2p", 2, PowersOfTwo(3, 30), [&](double n) { return alpha + n / beta; }, 0.02, 7);
    auto fits = Calibrate(set, Models({"alphabeta"}));
    ASSERT_EQ(fits.size(), 1u);
    const auto& f = fits[0];
    ASSERT_TRUE(f.ok);
    EXPECT_EQ(f.samples, 28u);
    EXPECT_EQ(f.resamples, 200u);
    ExpectCovers(f.alphaS, alpha, 0.10, "alpha");
    ExpectCovers(f.betaBps, beta, 0.10, "beta");
    // n* = alpha beta = 2.25 MB (Hockney's n_1/2), within the parameters' errors.
    EXPECT_NEAR(f.crossoverBytes, 2.25e6, 0.1 * 2.25e6);
    // 2 % noise: the RMS relative residual is about 0.02 (28 points: within 0.012..0.03).
    EXPECT_GT(f.rmsError, 0.012);
    EXPECT_LT(f.rmsError, 0.03);
    // Bands: sizes 8 B .. 32 KiB (13), 64 KiB .. 512 KiB (4), 1 .. 32 MiB (6), 64 MiB .. 1 GiB (5).
    ASSERT_EQ(f.bands.size(), 4u);
    EXPECT_EQ(f.bands[0].count, 13u);
    EXPECT_EQ(f.bands[1].count, 4u);
    EXPECT_EQ(f.bands[2].count, 6u);
    EXPECT_EQ(f.bands[3].count, 5u);
    EXPECT_EQ(f.residuals.size(), 28u);
}

// S-curve beta(n) = beta_max (1 - e^{-n/n0}) with alpha = 2 us, beta_max =
// 400 GB/s, n0 = 256 KiB (about the typical NVLink n0), 1 % noise, 1 KiB .. 1 GiB.
// n0 is the least determined (it trades against alpha below n0): 50 % width.
TEST(CalibrationFit, SCurveRecoversWithinInterval)
{
    const double alpha = 2e-6;
    const double betaMax = 400e9;
    const double n0 = 262144;
    auto f0 = [&](double n) { return alpha + n / (betaMax * (1 - std::exp(-n / n0))); };
    auto set = Synthetic("p2p", 2, PowersOfTwo(10, 30), f0, 0.01, 11);
    auto fits = Calibrate(set, Models({"scurve", "alphabeta"}));
    const auto& s = Only(fits, "scurve");
    ASSERT_TRUE(s.ok);
    ExpectCovers(s.alphaS, alpha, 0.25, "alpha");
    ExpectCovers(s.betaBps, betaMax, 0.05, "beta_max");
    ExpectCovers(s.n0Bytes, n0, 0.5, "n0");
    // The constant-beta model cannot follow the S-curve: its error is several
    // times the noise, the S-curve's about the noise (1 %).
    const auto& ab = Only(fits, "alphabeta");
    EXPECT_LT(s.rmsError, 0.015);
    EXPECT_GT(ab.rmsError, 3 * s.rmsError);
}

// Protocol steps with the typical values (analytic.md, Rules of thumb): eager
// 2 us below 8 KiB, + 3 us RTT from 8 KiB, + 1 us pipeline setup from 512 KiB,
// beta 25 GB/s; 1 % noise on 16 B .. 64 MiB. The thresholds are found exactly
// at the measured sizes where the steps are; each level within its interval.
TEST(CalibrationFit, ProtocolFindsThresholdsAndSteps)
{
    const double beta = 25e9;
    auto f0 = [&](double n) {
        double a = 2e-6 + (n >= 8192 ? 3e-6 : 0) + (n >= 524288 ? 1e-6 : 0);
        return a + n / beta;
    };
    auto set = Synthetic("p2p", 2, PowersOfTwo(4, 26), f0, 0.01, 3);
    auto fits = Calibrate(set, Models({"protocol"}));
    const auto& p = fits.at(0);
    ASSERT_TRUE(p.ok);
    EXPECT_EQ(p.eagerLimitBytes.value, 8192);
    EXPECT_EQ(p.rendezvousLimitBytes.value, 524288);
    // The step is only known between the neighbouring sizes: 4097 .. 8192.
    EXPECT_LE(p.eagerLimitBytes.lo, 4097);
    ExpectCovers(p.alphaS, 2e-6, 0.2, "eager alpha");
    ExpectCovers(p.rendezvousRttS, 3e-6, 0.3, "rtt");
    ExpectCovers(p.pipelineSetupS, 1e-6, 1.5, "pipeline");
    ExpectCovers(p.betaBps, beta, 0.1, "beta");
}

// A ring allreduce on 8 ranks timed as compare's closed form
// 2(N-1)(alpha + S/(N beta)), alpha = 3 us, beta = 300 GB/s, 2 % noise: the
// per-step fit gives back alpha and beta themselves (not 14 alpha, nor busbw).
TEST(CalibrationFit, RingAllReducePerStepParameters)
{
    const double alpha = 3e-6;
    const double beta = 300e9;
    const double n = 8;
    auto set = Synthetic("allreduce", 8, PowersOfTwo(10, 32),
                         [&](double s) { return 2 * (n - 1) * (alpha + s / (n * beta)); }, 0.02, 5);
    auto fits = Calibrate(set, Models({"alphabeta"}));
    const auto& f = fits.at(0);
    EXPECT_EQ(f.steps, 14);
    ExpectCovers(f.alphaS, alpha, 0.1, "alpha");
    ExpectCovers(f.betaBps, beta, 0.1, "beta");
}

// LogGP on latency data: 2o + L = 1.5 us, G = 1 / 12.5 GB/s (80 ps/B), 1 %
// noise, 2 B .. 4 MiB. Only 2o + L and G are identifiable: L and o stay null
// unless o is given; with o = 0.4 us, L = 1.5 - 0.8 = 0.7 us.
TEST(CalibrationFit, LogGpLatencyIdentifiesTwoOPlusLAndG)
{
    const double c = 1.5e-6;
    const double G = 1 / 12.5e9;
    auto set = Synthetic("p2p", 2, PowersOfTwo(1, 22), [&](double n) { return c + (n - 1) * G; }, 0.01, 9);
    auto fits = Calibrate(set, Models({"loggp"}));
    const auto& f = fits.at(0);
    ExpectCovers(f.twoOPlusLS, c, 0.05, "2o+L");
    ExpectCovers(f.GSPerByte, G, 0.05, "G");
    EXPECT_FALSE(f.LS.Known());
    EXPECT_FALSE(f.oS.Known());
    EXPECT_TRUE(HasDiagnostic(f, "only 2o + L and G are identifiable"));
    CalibrationOptions withO = Models({"loggp"});
    withO.overheadS = 0.4e-6;
    // The fits are kept: a reference into the temporary vector would dangle
    // (a heap use after free that the sanitized tree reports).
    const auto fitsWithO = Calibrate(set, withO);
    const auto& g = fitsWithO.at(0);
    EXPECT_NEAR(g.LS.value, g.twoOPlusLS.value - 0.8e-6, 1e-15);
    EXPECT_LE(g.LS.lo, 0.7e-6);
    EXPECT_GE(g.LS.hi, 0.7e-6);
}

// A bandwidth test (message stream): interval max(g, (n-1) G) with g = 0.186 us
// (5.4 M messages/s) and G = 1 / 24.6 GB/s, the shape of the HDR ib_write_bw
// table; 1 % noise.
TEST(CalibrationFit, LogGpThroughputIdentifiesGapAndG)
{
    const double g = 0.186e-6;
    const double G = 1 / 24.6e9;
    auto set = Synthetic("p2p", 2, PowersOfTwo(1, 23), [&](double n) { return std::max(g, (n - 1) * G); }, 0.01,
                         13, MeasurementKind::THROUGHPUT);
    auto fits = Calibrate(set, Models({"loggp", "alphabeta"}));
    const auto& f = Only(fits, "loggp");
    EXPECT_EQ(f.kind, MeasurementKind::THROUGHPUT);
    ExpectCovers(f.gS, g, 0.05, "g");
    ExpectCovers(f.GSPerByte, G, 0.05, "G");
    EXPECT_TRUE(HasDiagnostic(Only(fits, "alphabeta"), "bandwidth-test data"));
}

// What a log cannot give.
TEST(CalibrationFit, DiagnosesWhatTheDataCannotGive)
{
    // Sizes all far above the crossover (n* = 2.25 MB): 1 GiB .. 16 GiB.
    auto big = Synthetic("p2p", 2, PowersOfTwo(30, 34), [](double n) { return 5e-6 + n / 450e9; }, 0.01, 1);
    auto fits = Calibrate(big, Models({"alphabeta", "scurve"}));
    EXPECT_TRUE(HasDiagnostic(Only(fits, "alphabeta"), "alpha not identifiable"));
    // No S-curve in the data, or all sizes above n0: n0 cannot be told.
    EXPECT_TRUE(HasDiagnostic(Only(fits, "scurve"), "n0 not identifiable"));

    // A single-process run (nccl-tests -g 8): launch overhead in alpha.
    auto one = Synthetic("allreduce", 8, PowersOfTwo(10, 30), [](double s) { return 14 * (5e-6 + s / 8 / 300e9); },
                         0.01, 2);
    one.sources[0].gpusPerThread = 8;
    one.sources[0].processes = 1;
    auto f1 = Calibrate(one, Models({"alphabeta"})).at(0);
    EXPECT_TRUE(HasDiagnostic(f1, "single-process run (nGpus 8)"));
    EXPECT_TRUE(HasDiagnostic(f1, "launch overhead"));

    // Too few sizes for the protocol model (needs two per segment).
    auto few = Synthetic("p2p", 2, PowersOfTwo(10, 13), [](double n) { return 5e-6 + n / 450e9; }, 0.01, 3);
    auto fp = Calibrate(few, Models({"protocol"})).at(0);
    EXPECT_FALSE(fp.ok);
    EXPECT_TRUE(HasDiagnostic(fp, "4 distinct sizes; needs at least 6"));
    EXPECT_FALSE(fp.alphaS.Known());
}

// #wrong > 0 rows are excluded and counted; exact data fit exactly.
TEST(CalibrationFit, ExcludesWrongRowsAndFitsExactData)
{
    auto set = Synthetic("p2p", 2, PowersOfTwo(3, 20), [](double n) { return 5e-6 + n / 450e9; }, 0.0, 1);
    set.samples[4].wrong = 2;
    set.samples[4].timeS *= 10; // a failed run's time must not pull the fit
    auto f = Calibrate(set, Models({"alphabeta"})).at(0);
    EXPECT_EQ(f.samples, 17u);
    EXPECT_TRUE(HasDiagnostic(f, "1 rows with #wrong > 0 excluded"));
    // Exact data: only double rounding in GSL's SVD (~1e-12 relative).
    EXPECT_NEAR(f.alphaS.value, 5e-6, 5e-6 * 1e-9);
    EXPECT_NEAR(f.betaBps.value, 450e9, 450e9 * 1e-9);
    EXPECT_LT(f.rmsError, 1e-9);
}

// Out-of-place by default; a log with in-place columns only is fitted on them, and said so.
TEST(CalibrationFit, PlacementChoice)
{
    auto both = Synthetic("p2p", 2, PowersOfTwo(3, 12), [](double n) { return 5e-6 + n / 450e9; }, 0.0, 1);
    auto ip = both;
    for (auto& s : ip.samples)
    {
        s.inPlace = true;
        s.timeS *= 2; // in-place twice as slow: tells which placement was fitted
    }
    both.Append(ip);
    auto oop = Calibrate(both, Models({"alphabeta"})).at(0);
    EXPECT_FALSE(oop.inPlace);
    EXPECT_EQ(oop.samples, 10u);
    EXPECT_NEAR(oop.alphaS.value, 5e-6, 5e-15);
    CalibrationOptions o = Models({"alphabeta"});
    o.inPlace = true;
    auto inp = Calibrate(both, o).at(0);
    EXPECT_TRUE(inp.inPlace);
    EXPECT_NEAR(inp.alphaS.value, 10e-6, 10e-15);
    auto only = Calibrate(ip, Models({"alphabeta"})).at(0);
    EXPECT_TRUE(only.inPlace);
    EXPECT_TRUE(HasDiagnostic(only, "in-place samples only"));
}

TEST(CalibrationFit, BadRequestsAreInputErrors)
{
    // No collective, but a busbw column (an nccl-tests table): which collective is a guess.
    auto set = Synthetic("", 0, PowersOfTwo(3, 10), [](double n) { return 5e-6 + n / 450e9; }, 0.0, 1);
    for (auto& s : set.samples)
    {
        s.algbwBps = s.busbwBps = s.bytes / s.timeS;
    }
    try
    {
        Calibrate(set, Models({"alphabeta"}));
        ADD_FAILURE() << "expected InputError";
    }
    catch (const InputError& e)
    {
        EXPECT_NE(std::string(e.what()).find("synthetic:1"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("--collective"), std::string::npos);
    }
    CalibrationOptions o = Models({"alphabeta"});
    o.collective = "allreduce"; // known collective, ranks still unknown
    EXPECT_THROW(Calibrate(set, o), InputError);
    o.ranks = 4;
    EXPECT_EQ(Calibrate(set, o).at(0).ranks, 4u);
    EXPECT_THROW(Calibrate(set, Models({"roofline"})), InputError);
    // Without busbw (a plain size/time table) the samples are point-to-point.
    auto plain = Synthetic("", 0, PowersOfTwo(3, 10), [](double n) { return 5e-6 + n / 450e9; }, 0.0, 1);
    auto fp = Calibrate(plain, Models({"alphabeta"})).at(0);
    EXPECT_EQ(fp.collective, "p2p");
    EXPECT_TRUE(HasDiagnostic(fp, "read as point-to-point"));
}

// The parameter file round trip: what calibrate writes, LoadCalibratedParameters
// reads, and the models built from it give the fitted per-step times.
TEST(CalibrationFit, ParameterFileRoundTrip)
{
    auto set = Synthetic("p2p", 2, PowersOfTwo(10, 30),
                         [](double n) { return 2e-6 + n / (400e9 * (1 - std::exp(-n / 262144.0))); }, 0.01, 4);
    CalibrationOptions o = Models({"alphabeta", "scurve", "loggp"});
    o.resamples = 50;
    auto fits = Calibrate(set, o);
    char tmpl[] = "/tmp/hockney-calibration-XXXXXX";
    int fd = mkstemp(tmpl);
    ASSERT_GE(fd, 0);
    close(fd);
    std::string path = tmpl;
    WriteCalibrationFile(path, fits);
    auto loaded = LoadCalibratedParameters(path);
    ASSERT_EQ(loaded.size(), 3u);
    const auto& sc = SelectCalibratedParameters(loaded, "scurve", "p2p", "--params");
    const auto& fit = Only(fits, "scurve");
    EXPECT_DOUBLE_EQ(sc.alphaS, fit.alphaS.value);
    EXPECT_DOUBLE_EQ(sc.n0Bytes, fit.n0Bytes.value);
    Ptr<AlphaBetaModel> m = sc.MakeAlphaBetaModel();
    // T(1 MiB) by hand from the fitted values; the model rounds n0 to whole bytes
    // and beta to whole bits per second: 1e-6 relative covers both.
    double n = 1048576;
    double expected = fit.alphaS.value + n / (fit.betaBps.value * (1 - std::exp(-n / fit.n0Bytes.value)));
    EXPECT_NEAR(m->TimeSeconds(1048576), expected, expected * 1e-6);
    const auto& lg = SelectCalibratedParameters(loaded, "loggp", "", "--params");
    Ptr<LogGpModel> l = lg.MakeLogGpModel();
    double lgExpected = lg.twoOPlusLS + (n - 1) * lg.GSPerByte;
    // L is a Time (picoseconds): 1 ps on microseconds.
    EXPECT_NEAR(l->TimeSeconds(1048576), lgExpected, 2e-12);
    EXPECT_THROW(SelectCalibratedParameters(loaded, "protocol", "", "--params"), InputError);
    std::remove(path.c_str());
    // A file that is not a calibration.
    EXPECT_THROW(LoadCalibratedParameters("/nonexistent/params.json"), InputError);
    std::string bad = path + ".bad";
    FILE* fp = std::fopen(bad.c_str(), "w");
    std::fputs("{\"rows\": []}", fp);
    std::fclose(fp);
    try
    {
        LoadCalibratedParameters(bad);
        ADD_FAILURE() << "expected InputError";
    }
    catch (const InputError& e)
    {
        EXPECT_NE(std::string(e.what()).find(bad), std::string::npos);
    }
    std::remove(bad.c_str());
}

// The real 8 x H100 ring log (single process, -g 8): calibration runs and its
// alphabeta fit reproduces the log's large sizes within a few percent.
TEST(CalibrationFit, RealTogetherRingLog)
{
    std::string path = HOCKNEY_SOURCE_DIR "/validation/data/nccl_allreduce_ring_8xH100_nvswitch_together.csv";
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0) << "measured data missing from the repository: " << path;
    auto fits = Calibrate(ReadMeasurementFile(path), Models({"alphabeta", "scurve"}));
    const auto& ab = Only(fits, "alphabeta");
    EXPECT_EQ(ab.collective, "allreduce");
    EXPECT_EQ(ab.ranks, 8u);
    EXPECT_TRUE(HasDiagnostic(ab, "single-process run"));
    // Large messages: the algebra's ~5 % accuracy band (analytic.md, Rules of
    // thumb), on a real log.
    EXPECT_LT(ab.bands[3].rms, 0.05);
    // beta is the per-link bandwidth: busbw plateau 368 GB/s (last row) within 10 %.
    EXPECT_NEAR(ab.betaBps.value, 368e9, 0.1 * 368e9);
}

TEST(CalibrationFit, LaunchIsTheFloorAboveNcclsLatencies)
{
    // 8 ranks on one host (hosts 0 = unknown: one), allreduce: NCCL's LL
    // floor is Ring's 6.6 + 14 x 0.6 = 15.0 us (Tree's 6.8 + 2 x 7 x 0.6 =
    // 15.2 is higher). Exact data T = 20 us + 15 us + S / 100 GB/s: the
    // sizes below 64 KiB give the launch, 20 us plus the weighted mean of
    // S / 100 GB/s (at most 32 KiB / 100 GB/s = 0.33 us): within 0.35 us.
    const auto sizes = PowersOfTwo(3, 20);
    auto set = Synthetic("allreduce", 8, sizes, [](double s) { return 35e-6 + s / 100e9; }, 0.0, 1);
    const auto fits = Calibrate(set, Models({"launch"}));
    const auto& f = Only(fits, "launch");
    ASSERT_TRUE(f.ok);
    EXPECT_EQ(f.samples, 13u); // 8 B .. 32 KiB
    EXPECT_NEAR(f.launchOverheadS.value, 20e-6, 0.35e-6);
    EXPECT_LE(f.launchOverheadS.lo, f.launchOverheadS.value);
    EXPECT_GE(f.launchOverheadS.hi, f.launchOverheadS.value);
    EXPECT_EQ(f.residuals.size(), 13u);

    // Two hosts x 8 GPUs: NCCL's floor is Tree's 6.8 + 2 (7 x 0.6 + 5.0) =
    // 25.2 us (Ring's 6.6 + 28 x 0.6 + 2 x 2.7 = 28.8). A log at 25.2 us +
    // 3 us gives 3 us (exact, no size term: 1e-12 s is rounding only).
    set = Synthetic("allreduce", 16, sizes, [](double) { return 28.2e-6; }, 0.0, 1);
    set.sources[0].hosts = 2;
    const auto twoFits = Calibrate(set, Models({"launch"}));
    const auto& two = Only(twoFits, "launch");
    EXPECT_NEAR(two.launchOverheadS.value, 3e-6, 1e-12);
    // The same log without rank lines: one node assumed (Ring's 6.6 + 30 x
    // 0.6 = 24.6 us is then the floor, a 3.6 us launch) and said, unless
    // --gpus-per-node gives the nodes.
    set.sources[0].hosts = 0;
    const auto oneFits = Calibrate(set, Models({"launch"}));
    EXPECT_NEAR(Only(oneFits, "launch").launchOverheadS.value, 3.6e-6, 1e-12);
    EXPECT_TRUE(HasDiagnostic(Only(oneFits, "launch"), "give --gpus-per-node"));
    CalibrationOptions byNode = Models({"launch"});
    byNode.gpusPerNode = 8;
    const auto nodeFits = Calibrate(set, byNode);
    EXPECT_NEAR(Only(nodeFits, "launch").launchOverheadS.value, 3e-6, 1e-12);

    // Below NCCL's latencies (a log faster than its model): held at 0, said.
    set = Synthetic("allreduce", 8, sizes, [](double) { return 10e-6; }, 0.0, 1);
    const auto lowFits = Calibrate(set, Models({"launch"}));
    const auto& low = Only(lowFits, "launch");
    EXPECT_EQ(low.launchOverheadS.value, 0.0);
    EXPECT_TRUE(HasDiagnostic(low, "no launch overhead"));

    // AllToAll: NCCL has no such floor; no fit, said.
    set = Synthetic("alltoall", 8, sizes, [](double) { return 30e-6; }, 0.0, 1);
    const auto a2aFits = Calibrate(set, Models({"launch"}));
    const auto& a2a = Only(a2aFits, "launch");
    EXPECT_FALSE(a2a.ok);
    EXPECT_TRUE(HasDiagnostic(a2a, "allreduce, allgather and reducescatter only"));
}

TEST(CalibrationFit, LaunchOfTheTogetherRingLog)
{
    // The published single-process 8 x H100 ring curve: its 13 sizes below
    // 64 KiB take 35.0-38.3 us against NCCL's 15.0 us floor, so the launch is
    // their weighted mean less 15 us: 36.3 - 15.0 = 21.3 us by hand from the
    // out-of-place column (mean of the 13 times 36.32 us; the 1/T^2 weights
    // make it 36.27 us). Within 0.3 us.
    std::string path = HOCKNEY_SOURCE_DIR "/validation/data/nccl_allreduce_ring_8xH100_nvswitch_together.csv";
    const auto fits = Calibrate(ReadMeasurementFile(path), Models({"launch"}));
    const auto& f = Only(fits, "launch");
    ASSERT_TRUE(f.ok);
    EXPECT_NEAR(f.launchOverheadS.value, 21.3e-6, 0.3e-6);
    EXPECT_TRUE(HasDiagnostic(f, "single-process"));
}
