package gluelab.ops;

/** fp64 RMSNorm arithmetic over rows, shared by the references of the norm ops. */
final class RowNorm {
    private RowNorm() {}

    static double rstd(double[] x, int off, int n, double eps) {
        double ss = 0;
        for (int i = 0; i < n; i++) ss += x[off + i] * x[off + i];
        return 1.0 / Math.sqrt(ss / n + eps);
    }

    /** y = x * rstd * w over rows of width n. */
    static void forward(double[] x, double[] w, double[] y, int rows, int n, double eps) {
        for (int r = 0; r < rows; r++) {
            int off = r * n;
            double rs = rstd(x, off, n, eps);
            for (int i = 0; i < n; i++) y[off + i] = x[off + i] * rs * w[i];
        }
    }

    /** dx and (accumulated) dw of y = x * rstd * w for upstream grad dy. */
    static void backward(double[] x, double[] w, double[] dy, double[] dx, double[] dw, int rows, int n, double eps) {
        for (int r = 0; r < rows; r++) {
            int off = r * n;
            double rs = rstd(x, off, n, eps);
            double dot = 0;
            for (int i = 0; i < n; i++) {
                double norm = x[off + i] * rs;
                dw[i] += dy[off + i] * norm;
                dot += dy[off + i] * w[i] * norm;
            }
            dot /= n;
            for (int i = 0; i < n; i++) {
                double norm = x[off + i] * rs;
                dx[off + i] = rs * (dy[off + i] * w[i] - norm * dot);
            }
        }
    }
}
